"""torch.Stream and torch.Event on CPU (src/python/stream.c) compared with upstream: the CPU
stream 0 and its properties, equality and hashing, `with`, the event-less CPU backend's errors
(record, record_event, wait_stream), elapsed_time's checks, ipc refusals, bad arguments."""
from harness import cases

S = "s = torch.Stream()\ne = torch.Event()\n"
cases("stream", {
    "default": S + "(repr(s), s.device, s.device_type, s.device_index, s.stream_id, s.query(), s.synchronize(), s.is_capturing())",
    "device_forms": "(repr(torch.Stream('cpu')), repr(torch.Stream(torch.device('cpu'))), repr(torch.Stream(None)), repr(torch.Stream(device='cpu:1')), repr(torch.Stream(priority=-1)), repr(torch.Stream('meta')), torch.Stream('meta').device_type)",
    "id_form": "s = torch.Stream(stream_id=3, device_index=0, device_type=0)\n(repr(s), s.stream_id, s.device_index)",
    "eq_hash": S + "(s == torch.Stream(), s != torch.Stream(), s == 1, hash(s) == hash(torch.Stream()), s == torch.Stream('meta'), s == torch.Stream(stream_id=1, device_index=-1, device_type=0))",
    "with": S + "with s as z:\n    r = repr(z)\n(r, s.__exit__(None, None, None))",
    "wait_event": S + "s.wait_event(e)",
    "type": S + "(type(s).__module__, type(s).__name__, repr(type('X', (torch.Stream,), {})()), sorted(x for x in dir(s) if not x.startswith('__')))",
    "bad_record_event": S + "s.record_event()",
    "bad_record_event_arg": S + "s.record_event(e)",
    "bad_wait_stream": S + "s.wait_stream(s)",
    "bad_native_handle": S + "s.native_handle",
    "bad_pos": "torch.Stream('cpu', 1)",
    "bad_partial_id": "torch.Stream(stream_id=3)",
    "bad_device": "torch.Stream(3.5)",
    "bad_device_str": "torch.Stream('xyz')",
    "bad_pickle": S + "import pickle\npickle.dumps(s)",
})

cases("event", {
    "default": S + "(repr(e), e.device, e.event_id, e.query(), e.synchronize(), e.wait(), e.wait(s), e == torch.Event())",
    "flags": "(repr(torch.Event(enable_timing=True)), repr(torch.Event(blocking=True)), repr(torch.Event(interprocess=True)), repr(torch.Event('cpu')), repr(torch.Event('meta')))",
    "type": S + "(type(e).__module__, type(e).__name__, sorted(x for x in dir(e) if not x.startswith('__')))",
    "bad_record": S + "e.record()",
    "bad_record_stream": S + "e.record(s)",
    "bad_record_meta": "torch.Event('meta').record()",
    "bad_elapsed_untimed": "torch.Event(enable_timing=True).elapsed_time(torch.Event())",
    "bad_elapsed_unrecorded": "torch.Event(enable_timing=True).elapsed_time(torch.Event(enable_timing=True))",
    "bad_elapsed_arg": "torch.Event().elapsed_time(1)",
    "bad_ipc": S + "e.ipc_handle()",
    "bad_from_ipc": "torch.Event.from_ipc_handle('cpu', b'')",
    "bad_pos": "torch.Event('cpu', True)",
})
