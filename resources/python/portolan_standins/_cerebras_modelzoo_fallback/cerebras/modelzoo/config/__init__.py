"""cerebras.modelzoo.config (fallback following Model Zoo R2.10): typed config classes.

The real BaseConfig is a frozen pydantic 2 model that forbids unknown keys; this one reads the
class annotations the same way without pydantic: unknown keys and missing required fields are
errors, values are checked against int / float / bool / str / Literal / Optional / List /
Dict / nested configs, `= ...` marks a required field, and post_init(context) runs last.
NamedConfig subclasses name themselves with a Literal field (`name` for models,
`data_processor` for data).
"""
import copy
import typing

_MISSING = object()


class ConfigError(ValueError):
    pass


def _fields(cls):
    fields = {}
    for klass in reversed(cls.__mro__):
        try:
            hints = typing.get_type_hints(klass)
        except Exception:  # noqa: BLE001 - unresolvable forward references: take them raw
            hints = dict(getattr(klass, "__annotations__", {}))
        for name in getattr(klass, "__annotations__", {}):
            if name.startswith("_") or name == "model_config":
                continue
            ann = hints.get(name, typing.Any)
            if typing.get_origin(ann) is typing.ClassVar:
                continue
            default = klass.__dict__.get(name, _MISSING)
            fields[name] = (ann, _MISSING if default is Ellipsis else default)
    return fields


def _check(ann, value, where):
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if ann is typing.Any or ann is None and value is None:
        return value
    if origin is typing.Literal:
        if value not in args:
            raise ConfigError(f"{where}: input should be one of {list(args)}, got {value!r}")
        return value
    if origin is typing.Union:
        errors = []
        for option in args:
            if option is type(None):
                if value is None:
                    return None
                continue
            try:
                return _check(option, value, where)
            except ConfigError as e:
                errors.append(str(e))
        raise ConfigError(errors[0] if errors else f"{where}: invalid value {value!r}")
    if origin in (list, tuple, typing.List, typing.Tuple):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where}: input should be a list, got {value!r}")
        item = args[0] if args and args[-1] is not Ellipsis else (args[0] if args else None)
        out = [_check(item, v, f"{where}[{i}]") if item is not None else v
               for i, v in enumerate(value)]
        return tuple(out) if origin in (tuple, typing.Tuple) else out
    if origin in (dict, typing.Dict):
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: input should be a dict, got {value!r}")
        return value
    if origin is typing.Annotated if hasattr(typing, "Annotated") else False:
        return _check(args[0], value, where)
    if ann is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: input should be a valid boolean, got {value!r}")
    if ann is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise ConfigError(f"{where}: input should be a valid integer, got {value!r}")
    if ann is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise ConfigError(f"{where}: input should be a valid number, got {value!r}")
    if ann is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f"{where}: input should be a valid string, got {value!r}")
    if isinstance(ann, type) and issubclass(ann, BaseConfig):
        if isinstance(value, ann):
            return value
        if isinstance(value, dict):
            return ann(**value)
        raise ConfigError(f"{where}: input should be a {ann.__name__} mapping, got {value!r}")
    return value


class BaseConfig:
    def __init__(self, **data):
        cls = type(self)
        fields = _fields(cls)
        extra = sorted(set(data) - set(fields))
        if extra:
            raise ConfigError(f"{len(extra)} validation error(s) for {cls.__name__}: "
                              f"{', '.join(extra)}: extra inputs are not permitted (expected "
                              f"some of: {', '.join(sorted(fields))})")
        for name, (ann, default) in fields.items():
            if name in data:
                value = _check(ann, data[name], f"{cls.__name__}.{name}")
            elif default is _MISSING:
                raise ConfigError(f"{cls.__name__}.{name}: field required")
            else:
                value = copy.deepcopy(default)
            object.__setattr__(self, name, value)
        self.post_init({})

    def post_init(self, context):
        pass

    def model_dump(self):
        return {name: getattr(self, name) for name in _fields(type(self))}

    dict = model_dump

    def __repr__(self):
        body = ", ".join(f"{k}={v!r}" for k, v in self.model_dump().items())
        return f"{type(self).__name__}({body})"


class NamedConfig(BaseConfig):
    discriminator: typing.ClassVar[str] = "name"

    def __init__(self, **data):
        ann, default = _fields(type(self)).get(self.discriminator, (None, None))
        if ann is None or typing.get_origin(ann) is not typing.Literal:
            raise TypeError(f"Expected {type(self).__name__}.{self.discriminator} to be a "
                            "Literal")
        data.setdefault(self.discriminator, typing.get_args(ann)[0])
        super().__init__(**data)

    @property
    def discriminator_value(self):
        return getattr(self, self.discriminator)


class ModelConfig(NamedConfig):
    discriminator: typing.ClassVar[str] = "name"

    @property
    def __model_cls__(self):
        from cerebras.modelzoo.registry import registry

        return registry.get_model_class(self.discriminator_value)


class DataConfig(NamedConfig):
    discriminator: typing.ClassVar[str] = "data_processor"
