"""poptorch.Options, written for Portolan after the PopTorch 3.x API reference.

The stand-in records every setting (the dry run's capture reports them to the simulated IPU
compiler) and checks arguments where PopTorch documents a constraint. Nothing is compiled.
"""
import copy

import torch

from . import enums


class _OptionsDict:
    """A group of settings; `toDict()` gives them for the capture."""

    def __init__(self, **defaults):
        object.__setattr__(self, "_values", dict(defaults))

    def set(self, **kwargs):
        self._values.update(kwargs)
        return self

    def createOrSet(self, **kwargs):
        return self.set(**kwargs)

    def exists(self, name):
        return name in self._values

    def toDict(self):
        return copy.deepcopy(self._values)

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"Invalid option {name}")


class _PopartOptions:
    """Raw PopART session options (opts._Popart.set("key", value))."""

    def __init__(self):
        self.options = {}

    def set(self, key, value):
        self.options[key] = value
        return self

    def setPatterns(self, patterns, level=2):
        self.options["patterns"] = dict(patterns)
        self.options["patternsLevel"] = level
        return self

    def setEngineOptions(self, engine_options):
        self.options["engineOptions"] = dict(engine_options)
        return self


class _JitOptions(_OptionsDict):
    def __init__(self):
        super().__init__(trace_model=True)

    def traceModel(self, trace_model):
        return self.set(trace_model=trace_model)


class _PrecisionOptions(_OptionsDict):
    def __init__(self, popart):
        self._popart = popart
        super().__init__(half_float_casting=enums.HalfFloatCastingBehavior.Default,
                         partials_type="float", stochastic_rounding=False,
                         running_statistics_always_float=True,
                         floating_point_exceptions=False)

    def halfFloatCasting(self, half_float_casting):
        if not isinstance(half_float_casting, enums.HalfFloatCastingBehavior):
            raise ValueError("halfFloatCasting must be set to "
                             "poptorch.HalfFloatCastingBehavior.FloatDowncastToHalf or "
                             "poptorch.HalfFloatCastingBehavior.HalfUpcastToFloat")
        return self.set(half_float_casting=half_float_casting)

    def runningStatisticsAlwaysFloat(self, value):
        if not isinstance(value, bool):
            raise ValueError("runningStatisticsAlwaysFloat needs to be set to a bool")
        return self.set(running_statistics_always_float=value)

    def enableFloatingPointExceptions(self, enabled):
        assert isinstance(enabled, bool), "enableFloatingPointExceptions needs to be set to a bool"
        self._popart.set("enableFloatingPointChecks", enabled)
        return self.set(floating_point_exceptions=enabled)

    def enableStochasticRounding(self, enabled):
        self._popart.set("enableStochasticRounding", enabled)
        return self.set(stochastic_rounding=bool(enabled))

    def setPartialsType(self, dtype):
        if dtype in (torch.float, torch.float32):
            name = "float"
        elif dtype in (torch.half, torch.float16):
            name = "half"
        else:
            raise ValueError("parameter to setPartialsType should be either torch.float or "
                             "torch.half")
        return self.set(partials_type=name)


class _TrainingOptions(_OptionsDict):
    def __init__(self):
        super().__init__(gradient_accumulation=1,
                         accumulation_and_replication_reduction_type=enums.ReductionType.Mean,
                         automatic_loss_scaling=False)

    def gradientAccumulation(self, gradient_accumulation):
        return self.set(gradient_accumulation=gradient_accumulation)

    def accumulationAndReplicationReductionType(self, reduction_type):
        if not isinstance(reduction_type, enums.ReductionType) or \
                reduction_type == enums.ReductionType.NoReduction:
            raise ValueError("accumulationAndReplicationReductionType must be set to "
                             "poptorch.ReductionType.Mean or poptorch.ReductionType.Sum")
        return self.set(accumulation_and_replication_reduction_type=reduction_type)

    def setMeanAccumulationAndReplicationReductionStrategy(self, strategy):
        return self.set(mean_reduction_strategy=strategy)

    def setAutomaticLossScaling(self, enabled):
        return self.set(automatic_loss_scaling=bool(enabled))

    def setConvolutionDithering(self, enabled):
        return self.set(convolution_dithering=bool(enabled))


class TensorLocationSettings(_OptionsDict):
    """Where one class of tensors lives (on chip, in streaming memory, sharded)."""

    def __init__(self):
        super().__init__()

    def useOnChipStorage(self, use=True):
        return self.set(onChip=bool(use))

    def useReplicatedTensorSharding(self, use=True):
        return self.set(useReplicatedTensorSharding=bool(use))

    def minElementsForOffChip(self, min_elements):
        return self.set(minElementsForOffChip=int(min_elements))

    def minElementsForReplicatedTensorSharding(self, min_elements):
        return self.set(minElementsForReplicatedTensorSharding=int(min_elements))

    def useIOTilesToLoad(self, use=True):
        return self.set(useIOTilesToLoad=bool(use))

    def useIOTilesToStore(self, use=True):
        return self.set(useIOTilesToStore=bool(use))


class _TensorLocationOptions(_OptionsDict):
    def __init__(self):
        super().__init__(num_io_tiles=0)

    def _location(self, name, location):
        if not isinstance(location, TensorLocationSettings):
            raise ValueError(f"{name} expects a poptorch.TensorLocationSettings")
        return self.set(**{name: location.toDict()})

    def numIOTiles(self, num_tiles):
        return self.set(num_io_tiles=int(num_tiles))

    def setActivationLocation(self, location):
        return self._location("location_activation", location)

    def setWeightLocation(self, location):
        return self._location("location_weight", location)

    def setOptimizerLocation(self, location):
        return self._location("location_optimizer", location)

    def setAccumulatorLocation(self, location):
        return self._location("location_accumulator", location)


class _DistributedOptions(_OptionsDict):
    def __init__(self):
        super().__init__(num_distributed_processes=1, distributed_process_id=0)

    def configureProcessId(self, process_id, num_processes):
        return self.set(distributed_process_id=process_id,
                        num_distributed_processes=num_processes)

    def disableProcessEnvVarsParsing(self):
        return self

    @property
    def processId(self):
        return self._values["distributed_process_id"]

    @property
    def numProcesses(self):
        return self._values["num_distributed_processes"]


class _IExecutionStrategy:
    def __init__(self, stages):
        self.stages = list(stages)

    def toDict(self):
        stages = []
        for s in self.stages:
            stages.append(s.toDict() if hasattr(s, "toDict") else str(s))
        return {"type": type(self).__name__, "stages": stages}


class Stage:
    """A pipeline stage made of blocks (by user id)."""

    def __init__(self, *block_ids):
        self.blocks = list(block_ids)
        self._ipu = None

    def ipu(self, ipu):
        self._ipu = ipu
        return self

    def toDict(self):
        return {"blocks": [str(b) for b in self.blocks], "ipu": self._ipu}


class PipelinedExecution(_IExecutionStrategy):
    def __init__(self, *args):
        if len(args) == 1 and isinstance(args[0], enums.AutoStage):
            self.auto_stage = args[0]
            args = ()
        super().__init__(args)


class ShardedExecution(PipelinedExecution):
    pass


class Phase:
    def __init__(self, *arg):
        self.stages = list(arg)


class ParallelPhasedExecution(_IExecutionStrategy):
    def __init__(self, *phases):
        super().__init__(phases)


class SerialPhasedExecution(_IExecutionStrategy):
    def __init__(self, *phases):
        super().__init__(phases)


class Options(_OptionsDict):
    """Options of a PopTorch model: device iterations, replication, gradient accumulation,
    precision, available memory proportion and the rest (PopTorch 3.x)."""

    def __init__(self):
        self._popart = _PopartOptions()
        self._jit = _JitOptions()
        self._precision = _PrecisionOptions(self._popart)
        self._training = _TrainingOptions()
        self._distributed = _DistributedOptions()
        self._tensor_locations = _TensorLocationOptions()
        self._execution_strategy = PipelinedExecution()
        self._anchored = {}
        super().__init__(replication_factor=1, device_iterations=1, input_group_size=1,
                         log_dir=".", auto_round_num_ipus=False,
                         output_mode=enums.OutputMode.Default, output_return_period=1,
                         connection_type=enums.ConnectionType.Always,
                         sync_pattern=enums.SyncPattern.Full,
                         available_memory_proportion={}, synthetic_data=False,
                         executable_cache_dir=None, random_seed=None, model_name=None)

    # Sub-groups, as attributes like PopTorch's.
    @property
    def Jit(self):
        return self._jit

    @property
    def Precision(self):
        return self._precision

    @property
    def Training(self):
        return self._training

    @property
    def Distributed(self):
        return self._distributed

    @property
    def TensorLocations(self):
        return self._tensor_locations

    @property
    def _Popart(self):
        return self._popart

    def deviceIterations(self, device_iterations):
        return self.set(device_iterations=device_iterations)

    def replicationFactor(self, replication_factor):
        return self.set(replication_factor=replication_factor)

    def inputReplicaGrouping(self, input_group_size, input_group_type=None):
        return self.set(input_group_size=input_group_size)

    def broadcastBuffers(self, broadcast_buffers=True):
        return self.set(broadcast_buffers=bool(broadcast_buffers))

    def enableSyntheticData(self, enabled):
        return self.set(synthetic_data=bool(enabled))

    def logDir(self, log_dir):
        return self.set(log_dir=log_dir)

    def enableExecutableCaching(self, path):
        return self.set(executable_cache_dir=path)

    def randomSeed(self, random_seed):
        return self.set(random_seed=random_seed)

    def enableStableNorm(self, enabled):
        return self.set(stable_norm=bool(enabled))

    def autoRoundNumIPUs(self, auto_round_num_ipus):
        return self.set(auto_round_num_ipus=bool(auto_round_num_ipus))

    def useIpuModel(self, use_model):
        return self.set(use_model=bool(use_model))

    def useIpuId(self, ipu_id):
        return self.set(ipu_id=ipu_id)

    def useOfflineIpuTarget(self, ipu_version=2):
        return self.set(offline_ipu_version=ipu_version)

    def connectionType(self, connection_type):
        if not isinstance(connection_type, enums.ConnectionType):
            raise ValueError("connectionType must be a poptorch.ConnectionType")
        return self.set(connection_type=connection_type)

    def syncPattern(self, sync_pattern):
        return self.set(sync_pattern=sync_pattern)

    def outputMode(self, output_mode, output_return_period=None):
        if not isinstance(output_mode, enums.OutputMode):
            raise ValueError("outputMode must be a poptorch.OutputMode")
        if output_mode == enums.OutputMode.EveryN and output_return_period is None:
            raise ValueError("output_return_period must be set when using "
                             "poptorch.OutputMode.EveryN")
        return self.set(output_mode=output_mode,
                        output_return_period=output_return_period or 1)

    def anchorMode(self, anchor_mode, anchor_return_period=None):
        return self.outputMode(anchor_mode, anchor_return_period)

    def anchorTensor(self, short_name, long_name, output_mode=None, output_return_period=1):
        if not isinstance(short_name, str) or not isinstance(long_name, str):
            raise ValueError("anchorTensor expects two strings: a short name and the tensor "
                             "name")
        self._anchored[short_name] = long_name
        return self

    def setExecutionStrategy(self, strategy):
        assert isinstance(strategy, _IExecutionStrategy)
        self._execution_strategy = strategy
        return self

    def setAvailableMemoryProportion(self, available_memory_proportion):
        proportions = {}
        for key, value in available_memory_proportion.items():
            assert key.startswith("IPU"), (
                "Available memory proportions are expected to be in a dictionary of "
                "{\"IPU0\": 0.5} where the 0 in IPU is the index of the IPU. Invalid key: %s"
                % key)
            int(key[3:])
            proportions[key] = float(value)
        return self.set(available_memory_proportion=proportions)

    def maxRepeatLogs(self, max_lines):
        return self.set(max_repeat_logs=max_lines)

    def relaxOptimizerAttributesChecks(self, relax=True):
        return self.set(relax_optimizer_checks=bool(relax))

    def enableProfiling(self, profile_dir=None):
        return self.set(profile_dir=profile_dir)

    def disableModuleNamescope(self):
        return self.set(module_namescope=False)

    def modelName(self, name):
        return self.set(model_name=name)

    def showCompilationProgressBar(self, show=True):
        return self.set(compilation_progress_bar=bool(show))

    def logCycleCount(self, log_cycle_count):
        return self.set(log_cycle_count=bool(log_cycle_count))

    def updatableNamedBuffers(self, buffers):
        return self.set(updatable_named_buffers=list(buffers))

    def loadFromFile(self, filepath):
        # PopTorch reads "key.subkey = value" lines; the dry run keeps them as given.
        with open(filepath, "r", encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                if "=" not in line:
                    raise ValueError(f"{filepath}:{number}: expected 'option = value'")
                key, value = (part.strip() for part in line.split("=", 1))
                self._values.setdefault("from_file", {})[key] = value
        return self

    def clone(self):
        return copy.deepcopy(self)

    @property
    def replication_factor(self):
        return self._values["replication_factor"]

    @property
    def device_iterations(self):
        return self._values["device_iterations"]

    @property
    def anchored_tensors(self):
        return dict(self._anchored)

    def toDict(self):
        """Every setting, for the capture (enums by name)."""

        def plain(value):
            if isinstance(value, (enums.OutputMode, enums.ConnectionType, enums.SyncPattern,
                                  enums.HalfFloatCastingBehavior, enums.ReductionType,
                                  enums.AutoStage)):
                return value.name
            if isinstance(value, dict):
                return {str(k): plain(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return [plain(v) for v in value]
            if isinstance(value, (int, float, str, bool)) or value is None:
                return value
            return str(value)

        d = {k: plain(v) for k, v in self._values.items()}
        d["gradient_accumulation"] = self._training.gradient_accumulation
        d["precision"] = plain(self._precision.toDict())
        d["training"] = plain(self._training.toDict())
        d["tensor_locations"] = plain(self._tensor_locations.toDict())
        d["distributed"] = plain(self._distributed.toDict())
        d["popart"] = plain(self._popart.options)
        d["anchored_tensors"] = dict(self._anchored)
        d["execution_strategy"] = plain(self._execution_strategy.toDict())
        return d
