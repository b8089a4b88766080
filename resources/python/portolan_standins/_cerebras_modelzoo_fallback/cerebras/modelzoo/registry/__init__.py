"""cerebras.modelzoo.registry (fallback following Model Zoo R2.10): the model registry.

register_model(*, name, path, data_processor_paths) records a model class by its dotted path;
get_model_class(name) imports it. The fallback starts empty (Model Zoo's own models need the
real package); a name it does not know is looked up in the project by the Trainer stand-in.
"""
import importlib


class _Entry:
    def __init__(self, name, path, data_processor_paths):
        if not name or not path:
            raise ValueError("name and path must be non-empty strings")
        if not data_processor_paths:
            raise ValueError(f"Expected at least one data processor path for model {name}.")
        self.name, self.path = name, path
        self.data_processor_paths = tuple(data_processor_paths)


class _Registry:
    def __init__(self):
        self.models = {}

    def register_model(self, *, name, path, data_processor_paths):
        if name in self.models and self.models[name].path != path:
            raise RuntimeError(f"Found duplicate model names:\n{{'{name}': 2}}")
        self.models[name] = _Entry(name, path, data_processor_paths)

    def get_model_names(self):
        return sorted(self.models)

    def get_model(self, model_name):
        if model_name not in self.models:
            names = "\n- ".join(self.get_model_names())
            raise ValueError(f"Model {model_name} not found in registry.\n\nExpected the name "
                             f"to be one of:\n- {names}")
        return self.models[model_name]

    def get_model_class(self, model_name):
        return self._import_class(self.get_model(model_name).path, model_name)

    def get_data_processors(self, model_name):
        return tuple(self._import_class(p, model_name)
                     for p in self.get_model(model_name).data_processor_paths)

    def get_data_processors_map(self, model_name):
        return {dp.__name__: dp for dp in self.get_data_processors(model_name)}

    @staticmethod
    def _import_class(path, name):
        module, class_name = path.rsplit(".", 1)
        try:
            module = importlib.import_module(module)
        except Exception as e:
            raise ImportError(f"Failed to import {class_name} from {module}:\n{e}\nPlease "
                              f"ensure the registry entry for {name} is correct and the module "
                              "is available on the python path.") from e
        cls = getattr(module, class_name, None)
        if cls is None:
            raise RuntimeError(f"Class {class_name} not found in module {module}. Please "
                               f"ensure the registry entry for {name} is correct.")
        return cls


registry = _Registry()
