"""The Flower components: one Engine, its ClientApp and its ServerApp (see pyproject.toml)."""
from torchnative.nn import federated
from torchnative.nn.federated import toy

engine = federated.Engine(toy.make_model, rounds=3, aggregator=federated.FedAvg(min_clients=2),
                          data=toy.partition, local_epochs=2, lr=0.1, batch_size=16,
                          transport="flower")
clientapp = engine.client_app()
serverapp = engine.server_app()
