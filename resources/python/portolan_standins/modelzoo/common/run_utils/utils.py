"""Device types of the Model Zoo CLI (R1.8)."""


class DeviceType:
    CPU = "CPU"
    GPU = "GPU"
    CSX = "CSX"
    ANY = "ANY"

    @classmethod
    def devices(cls):
        return [cls.CPU, cls.GPU, cls.CSX]


class ExecutionStrategy:
    pipeline = "pipeline"
    weight_streaming = "weight_streaming"
