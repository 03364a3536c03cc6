"""Run a Flower federation on 127.0.0.1 with real processes: one SuperLink (flower-superlink
--insecure) and N SuperNodes (flower-supernode --insecure), each from a chosen Python environment
(e.g. the SuperLink from upstream torch's venv, the SuperNodes from torchnative's), then submit
the app with `flwr run` and wait for the ServerApp's result file. No simulation engine.

    with LocalFederation(app_dir, superlink_python, [node_python] * 3) as fed:
        result = fed.run({"rounds": 3})
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import ctypes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def _die_with_parent():
    """Linux: the SuperLink / SuperNode get SIGKILL if the process that started them dies."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _bin(python, name):
    return os.path.join(os.path.dirname(python), name)


class LocalFederation:
    def __init__(self, app_dir, superlink_python, node_pythons, node_configs=None, workdir=None,
                 pythonpath=ROOT, keep=None):
        self.app_dir, self.link_py, self.node_pys = app_dir, superlink_python, list(node_pythons)
        n = len(self.node_pys)
        self.node_configs = node_configs or [{} for _ in range(n)]
        self.dir = workdir or tempfile.mkdtemp(prefix="tnfed-")
        # keep=False: the working directory (logs, Flower homes) is removed by __exit__
        self.keep = keep
        self.pythonpath = pythonpath
        self.port = free_port()
        self.link, self.nodes, self.logs = None, [], {}

    def _env(self, home, python):
        e = dict(os.environ)
        # the SuperLink / SuperNode start their helpers (flower-superexec, flwr-serverapp,
        # flwr-clientapp) by name: their own environment's bin directory comes first
        e["PATH"] = os.path.dirname(python) + os.pathsep + e.get("PATH", "")
        e["PYTHONPATH"] = self.pythonpath + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
        e["FLWR_HOME"] = home
        e["PYTHONUNBUFFERED"] = "1"
        e.setdefault("FLWR_SUPEREXEC_TASK_POLL_INTERVAL", "0.2")
        e.pop("VIRTUAL_ENV", None)
        return e

    def _spawn(self, name, argv, home, python):
        os.makedirs(home, exist_ok=True)
        logf = open(os.path.join(self.dir, name + ".log"), "w")
        self.logs[name] = logf.name
        # own session, so the process and the app processes it spawns can be ended together by id
        return subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, cwd=self.dir,
                                env=self._env(home, python), start_new_session=True,
                                preexec_fn=_die_with_parent)

    def start(self):
        self.link = self._spawn("superlink", [_bin(self.link_py, "flower-superlink"), "--insecure",
                                              "--port", str(self.port), "--database", ":flwr-in-memory:",
                                              "--disable-runtime-dependency-installation"],
                                os.path.join(self.dir, "home-link"), self.link_py)
        self._wait_port(self.port, self.link, "superlink")
        n = len(self.node_pys)
        for i, py in enumerate(self.node_pys):
            cfg = {"partition-id": i, "num-partitions": n}
            cfg.update(self.node_configs[i])
            nc = " ".join("%s=%s" % (k, json.dumps(v) if isinstance(v, str) else
                                    ("true" if v is True else "false" if v is False else v))
                          for k, v in cfg.items())
            self.nodes.append(self._spawn("supernode%d" % i, [
                _bin(py, "flower-supernode"), "--insecure", "--superlink", "127.0.0.1:%d" % self.port,
                "--port", str(free_port()), "--node-config", nc], os.path.join(self.dir, "home-node%d" % i), py))
        return self

    def _wait_port(self, port, proc, name, timeout=60):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if proc.poll() is not None:
                raise RuntimeError("%s exited (%s):\n%s" % (name, proc.returncode, self.log(name)[-3000:]))
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("%s did not listen on %d within %ds" % (name, port, timeout))

    def log(self, name):
        with open(self.logs[name]) as f:
            return f.read()

    def run(self, run_config=None, timeout=300):
        """Submit the app with `flwr run` (from the SuperLink's environment) and wait for the
        ServerApp's result file. Returns the parsed result (final state, per-round report)."""
        result_path = os.path.join(self.dir, "result-%d.json" % int(time.time() * 1000))
        rc = dict(run_config or {})
        rc["result-path"] = result_path
        home = os.path.join(self.dir, "home-cli")
        os.makedirs(home, exist_ok=True)
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write('[superlink]\ndefault = "local"\n\n[superlink.local]\naddress = "127.0.0.1:%d"\n'
                    'insecure = true\n' % self.port)
        items = " ".join("%s=%s" % (k, json.dumps(v) if isinstance(v, str) else
                                    ("true" if v is True else "false" if v is False else repr(v)))
                         for k, v in rc.items())
        app = os.path.join(self.dir, "app")
        if not os.path.exists(app):
            shutil.copytree(self.app_dir, app, ignore=shutil.ignore_patterns("__pycache__"))
        # --stream: the ServerApp's log comes back on this process's output until the run ends
        logf = open(os.path.join(self.dir, "flwr-run.log"), "a")
        self.logs["run"] = logf.name
        runp = subprocess.Popen([_bin(self.link_py, "flwr"), "run", app, "local", "--stream",
                                 "--run-config", items], stdout=logf, stderr=subprocess.STDOUT,
                                env=self._env(home, self.link_py), cwd=self.dir, start_new_session=True)
        t0 = time.time()
        try:
            while not os.path.exists(result_path):
                if time.time() - t0 > timeout:
                    raise RuntimeError("no result after %ds; run log:\n%s" % (timeout, self.log("run")[-6000:]))
                if runp.poll() is not None:
                    time.sleep(1.0)
                    if not os.path.exists(result_path):
                        raise RuntimeError("the run ended without a result; run log:\n%s" % self.log("run")[-6000:])
                if self.link.poll() is not None:
                    raise RuntimeError("superlink exited:\n%s" % self.log("superlink")[-6000:])
                time.sleep(0.2)
        finally:
            if runp.poll() is None:
                try:
                    runp.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(runp.pid, signal.SIGKILL)
                    runp.wait()
        with open(result_path) as f:
            return json.load(f)

    def kill_node(self, i):
        """SIGKILL SuperNode i and the ClientApp processes it started (its session), by id."""
        p = self.nodes[i]
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()

    def close(self):
        for p in self.nodes + ([self.link] if self.link else []):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
        for p in self.nodes + ([self.link] if self.link else []):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
        if self.keep is False:
            shutil.rmtree(self.dir, ignore_errors=True)
