"""Random-number ops: bit-identical to upstream for the same seed (the harness seeds
torch.manual_seed(0) before each case)."""
from harness import cases

cases("rand", [
    "torch.rand(5)", "torch.rand(3, 4)", "torch.rand((2, 3), dtype=torch.float64)", "torch.rand(7, dtype=torch.float16)",
    "torch.rand(7, dtype=torch.bfloat16)", "torch.rand(3, dtype=torch.complex64)", "torch.rand(0)", "torch.rand(())",
    "torch.rand(4, generator=torch.Generator().manual_seed(3))", "torch.rand(-1)", "torch.rand(3, dtype=torch.int64)",
    "torch.rand(2, 3, out=torch.empty(0))",
    "torch.randn(5)", "torch.randn(16)", "torch.randn(37)", "torch.randn(4, 5, dtype=torch.float64)",
    "torch.randn(20, dtype=torch.float16)", "torch.randn(20, dtype=torch.bfloat16)", "torch.randn(3, dtype=torch.complex64)",
    "torch.randn(3, dtype=torch.int64)", "(torch.randn(3), torch.randn(3), torch.randn(17))",
    "torch.randn(8, generator=torch.Generator().manual_seed(5))",
], strides=False)

cases("like", [
    "torch.rand_like(torch.empty(2, 3))", "torch.randn_like(torch.empty(20))", "torch.randn_like(torch.empty(4, 6).t())",
    "torch.rand_like(torch.empty(3), dtype=torch.float64)", "torch.rand_like(torch.empty(3, dtype=torch.int64))",
    "torch.randint_like(torch.empty(3), 5)", "torch.randint_like(torch.empty(3), 2, 5)",
    "torch.randint_like(torch.empty(3, dtype=torch.int32), 100)", "torch.randint_like(torch.empty(3), torch.tensor(5))",
], strides=True)

cases("randint_perm", [
    "torch.randint(10, (6,))", "torch.randint(3, 10, (2, 3))", "torch.randint(-5, 5, (8,), dtype=torch.int8)",
    "torch.randint(1 << 40, (4,))", "torch.randint(3, (2,), dtype=torch.float32)", "torch.randint(0, (3,))",
    "torch.randint(5, 2, (3,))", "torch.randint(3, (2,), dtype=torch.bool)", "torch.randint(2, (5,), dtype=torch.bool)",
    "torch.randint(100, (5,), generator=torch.Generator().manual_seed(1))", "torch.randint(5, (3,), out=torch.empty(0, dtype=torch.long))",
    "torch.randperm(8)", "torch.randperm(50, dtype=torch.int32)", "torch.randperm(0)", "torch.randperm(10, dtype=torch.float32)",
    "torch.randperm(-1)", "torch.randperm(300, dtype=torch.int8)", "torch.randperm(5, generator=torch.Generator().manual_seed(2))",
], strides=False)

cases("inplace", [
    "torch.empty(5).uniform_()", "torch.empty(5).uniform_(2, 3)", "torch.empty(4, 6).t().uniform_()",
    "torch.empty(6, dtype=torch.float64).uniform_(-1, 1)", "torch.empty(3).uniform_(2, 1)", "torch.empty(3, dtype=torch.int32).uniform_()",
    "torch.empty(20).normal_()", "torch.empty(20).normal_(3, 0.5)", "torch.empty(4, 6).t().normal_()", "torch.empty(8, 4)[:, ::2].normal_()",
    "torch.empty(3).normal_(0, -1)", "torch.empty(3, dtype=torch.int32).normal_()", "torch.empty(20, dtype=torch.float16).normal_()",
    "torch.empty(6, dtype=torch.uint8).random_()", "torch.empty(6).random_()", "torch.empty(6, dtype=torch.bool).random_()",
    "torch.empty(6, dtype=torch.int64).random_(10)", "torch.empty(6, dtype=torch.int16).random_(-3, 3)",
    "torch.empty(6, dtype=torch.float16).random_()", "torch.empty(3, dtype=torch.uint8).random_(-1, 5)",
    "torch.empty(3, dtype=torch.uint8).random_(0, 300)", "torch.empty(3).random_(5, 2)", "torch.empty(3, dtype=torch.complex64).random_()",
    "torch.empty(4, dtype=torch.int64).random_(-2**63, None)",
    "torch.empty(6).exponential_()", "torch.empty(6, dtype=torch.float64).exponential_(2.5)", "torch.empty(3).exponential_(0)",
    "torch.empty(3, dtype=torch.int64).exponential_()",
], strides=False)

cases("bernoulli", [
    "torch.bernoulli(torch.full((2, 3), 0.5))", "torch.bernoulli(torch.rand(10, dtype=torch.float64))",
    "torch.bernoulli(torch.full((5,), 0.3), 0.8)", "torch.empty(6).bernoulli_(0.25)", "torch.empty(6, dtype=torch.int64).bernoulli_(0.5)",
    "torch.empty(2, 3).bernoulli_(torch.tensor([0.1, 0.5, 0.9]))", "torch.empty(3, 2).t().bernoulli_(torch.full((2, 3), 0.5))",
    "torch.empty(3).bernoulli_(1.5)", "torch.bernoulli(torch.tensor([0.5, 2., 0.1]))", "torch.bernoulli(torch.tensor([1, 0]))",
    "torch.bernoulli(torch.full((4,), 0.5), generator=torch.Generator().manual_seed(7))",
], strides=False)

cases("normal_multinomial", [
    "torch.normal(torch.full((20,), 3.), 2.)", "torch.normal(3., torch.full((20,), 2.))",
    "torch.normal(torch.zeros(2, 1), torch.ones(3))", "torch.normal(2., 3., (3,))", "torch.normal(2., 3., (17,), dtype=torch.float64)",
    "torch.normal(torch.zeros(3), -1.)", "torch.normal(0., torch.tensor([-1., 1]))", "torch.normal(torch.zeros(2), torch.ones(3))",
    "torch.multinomial(torch.tensor([1., 2, 3, 4]), 3)", "torch.multinomial(torch.tensor([1., 2, 3, 4]), 6, True)",
    "torch.multinomial(torch.rand(3, 5), 2)", "torch.multinomial(torch.rand(3, 5, dtype=torch.float64), 1)",
    "torch.multinomial(torch.tensor([0., 1, 0]), 2)", "torch.multinomial(torch.tensor([1, 2]), 1)",
    "torch.multinomial(torch.ones(2), 0)", "torch.multinomial(torch.ones(2), 3)", "torch.multinomial(torch.tensor([-1., 2]), 1)",
    "torch.multinomial(torch.tensor([0., 0]), 2, True)", "torch.multinomial(torch.ones(2, 2, 2), 1)",
], strides=False)

cases("generator", [
    """
    g = torch.Generator().manual_seed(42)
    (torch.rand(3, generator=g), torch.randn(3, generator=g), torch.randint(5, (3,), generator=g), torch.randperm(4, generator=g))
    """,
    """
    s = torch.get_rng_state()
    a = torch.randn(5)
    torch.set_rng_state(s)
    (a, torch.randn(5))
    """,
    """
    torch.manual_seed(123)
    torch.randn(3)
    """,
], strides=False)
