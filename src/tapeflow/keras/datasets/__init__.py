"""``tf.keras.datasets``: the small datasets Keras downloads into its cache (``~/.keras/datasets``) with
``keras.utils.get_file``, each checked against Keras's published hash and returned as NumPy arrays as Keras returns
them (``(x_train, y_train), (x_test, y_test)``)."""

from . import boston_housing, cifar10, cifar100, fashion_mnist, mnist

__all__ = ["mnist", "fashion_mnist", "cifar10", "cifar100", "boston_housing"]
