"""Exception types (and messages) of the no-crash corpus's most frequent differences from upstream,
fixed in the layer owning each check (docs/breadth_more2.md "Fuzz corpus exception types"); the
corpus itself compares every call's exception type (tests/test_no_crash.py).

- im2col / col2im check each int[2] list's length first ("It is expected kernel_size equals to 2").
- fractional_max_pool2d / 3d backward read input's and grad_output's sizes before their checks:
  IndexError for too few dims.
- scatter / scatter_reduce: index against self, then against src (reading src.size(d): IndexError
  when src has fewer dims), then src's rank; an unknown reduce only after those (and the dim wrap).
- baddbmm / addbmm read the batches' sizes first (IndexError for too few dims).
- _fused_moving_avg_obs_fq_helper: the ch_axis and observer_on checks before our refusal of
  multi-dimensional running buffers (and fake_quant_on's, which upstream would still reach).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
x = torch.arange(6.).reshape(2, 3)
x4 = torch.arange(2 * 3 * 4 * 5.).reshape(2, 3, 4, 5)
i = torch.zeros(2, 3, dtype=torch.long)
"""

cases("fuzz_exception_types", {
    "im2col_list_lengths": "[err(lambda: torch.ops.aten.im2col(x4, *a)) for a in [([2, 2, 2], [1, 1], [0, 0], [1, 1]), ([1], [1, 1], [0, 0], [1, 1]), "
                           "([1] * 40, [1, 1], [0, 0], [1, 1]), ([1, 1], [1, 1, 1], [0, 0], [1, 1]), ([1, 1], [1, 1], [0], [1, 1]), "
                           "([1, 1], [1, 1], [0, 0], [1, 1, 1]), ([0, 0, 0], [1, 1], [0, 0], [1, 1])]], "
                           "err(lambda: torch.ops.aten.im2col(x, [3, 1, 1], [1, 1], [0, 0], [1, 1])), torch.ops.aten.im2col(x4, [2, 2], [1, 1], [0, 0], [1, 1]).shape",
    "col2im_list_lengths": "c = torch.ones(2, 4, 6); [err(lambda: torch.ops.aten.col2im(c, *a)) for a in [([4, 4, 4], [2, 2], [1, 1], [0, 0], [1, 1]), "
                           "([4], [2, 2, 2], [1, 1], [0, 0], [1, 1]), ([4, 4], [2], [1, 1], [0, 0], [1, 1]), ([4, 4], [2, 2], [1], [0, 0], [1, 1]), "
                           "([4, 4], [2, 2], [1, 1], [0, 0, 0], [1, 1]), ([4, 4], [2, 2], [1, 1], [0, 0], [1])]]",
    "fractional_max_pool_backward_dims": "B2 = torch.ops.aten.fractional_max_pool2d_backward; B3 = torch.ops.aten.fractional_max_pool3d_backward; "
                                         "[err(lambda: B2(g, s, [1, 1], [1, 1], i)) for g, s in [(x, x), (torch.tensor(1.), x), (x, torch.tensor(1.)), "
                                         "(x, x[0]), (torch.ones(1, 1, 1), x), (torch.ones(3, 1), x4[0]), (torch.ones(1, 1, 1), x4[0])]], "
                                         "[err(lambda: B3(g, s, [1, 1, 1], [1, 1, 1], i)) for g, s in [(x, x), (torch.tensor(1.), x4), (x, x4[0]), "
                                         "(torch.ones(1, 1), x4), (x4, x4[0, 0])]]",
    "scatter_src_rank_and_order": "[err(g) for g in [lambda: torch.scatter(x, 0, i, torch.ones(6)), lambda: torch.scatter(x, 0, i[:, :1], torch.ones(6)), "
                                  "lambda: torch.scatter(x, 0, i, torch.ones(2, 3, 1)), lambda: torch.scatter(x, 0, i, torch.ones(1, 1, 1)), "
                                  "lambda: torch.scatter(x, 2 ** 31, i, x, reduce='none'), lambda: torch.scatter(x, 0, i, x, reduce='none'), "
                                  "lambda: torch.scatter(x, 0, i.double(), x, reduce='none'), lambda: torch.scatter(x, 0, i, 1.0, reduce='max'), "
                                  "lambda: torch.scatter_reduce(x, 2 ** 31, i, x, 'none'), lambda: torch.scatter_reduce(x, 0, i, x.double(), 'none'), "
                                  "lambda: torch.scatter_reduce(x, 0, i, x, 'none'), lambda: x.clone().scatter_(5, i, x, reduce='x'), "
                                  "lambda: torch.gather(x, 0, torch.zeros(3, 4, dtype=torch.long)), lambda: torch.scatter(torch.tensor(1.), 0, torch.zeros(1, dtype=torch.long), torch.ones(1))]]",
    "fused_moving_avg_order": "F = torch.ops.aten._fused_moving_avg_obs_fq_helper; on, off = torch.ones(1, dtype=torch.long), torch.zeros(1, dtype=torch.long); "
                              "b = lambda: [torch.zeros(2, 3) for _ in range(4)]; "
                              "[err(lambda: F(s, o, f, *b(), 0.01, 0, 255, ch, pr, False)) for s, o, f, ch, pr in [(x, x, x, 0, False), (x, on, x, 0, False), "
                              "(torch.tensor(1.), on, on, 0, False), (x, on, on, 5, False), (x, off, off, 0, False), (x, on, on, 0, False), (x, off, on, 0, False), "
                              "(x, on, x, 0, True)]]",
    # upstream's meta expands self to (batch1.size(0), batch1.size(1), batch2.size(2)) before its checks
    # (addbmm: batch1.size(1), batch2.size(2)); types only: the later messages differ (docs)
    "baddbmm_addbmm_size_reads": "b = torch.ones(2, 3, 4); [(err(lambda: f(s, b1, b2)) or (None,))[0] for f in [torch.baddbmm, torch.addbmm] for s, b1, b2 in "
                                 "[(x, x, x), (torch.tensor(1.), x, b), (x, b, x), (x, b[0, 0], b), (x, torch.tensor(1.), b), (x, b, torch.tensor(2.)), "
                                 "(torch.tensor(1.), b, torch.ones(2, 4, 5)), (torch.tensor(1.), b, torch.ones(3, 4, 5)), (x, b, torch.ones(2, 5, 5))]]",
}, setup=SETUP)
