"""``tf.data.Options``: accepted and kept; this increment's pipelines run the same whatever they say."""


class _Group:
    """A group of options (``options.threading``, ``options.experimental_optimization`` ...) taking any field."""

    def __init__(self):
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._values.get(name)

    def __setattr__(self, name, value):
        self._values[name] = value


class Options:
    """Options of a dataset (``dataset.with_options(options)``): determinism, threading, optimizations."""

    def __init__(self):
        self.deterministic = None
        self.experimental_deterministic = None
        self.experimental_distribute = _Group()
        self.experimental_optimization = _Group()
        self.threading = _Group()
        self.autotune = _Group()
        self.experimental_slack = False
        self.experimental_external_state_policy = None

    def merge(self, options):
        """These options, with the ones set in ``options`` taking over."""
        out = Options()
        out.__dict__.update(self.__dict__)
        for k, v in options.__dict__.items():
            if v is not None:
                out.__dict__[k] = v
        return out

    def __eq__(self, other):
        return isinstance(other, Options) and repr(self.__dict__) == repr(other.__dict__)

    __hash__ = None
