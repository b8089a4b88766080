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
    """How blocks map to stages and IPUs (PopTorch's stage managers, options.py/_options_impl.py):
    a block named by a Stage runs on the Stage's IPU (`Stage.ipu(n)`), else on its own ipu_id,
    else on the stage's id; without Stages, AutoStage decides the stage ids (SameAsIpu: the
    block's ipu_id; AutoIncrement: 1, 2, ... for each new block)."""

    auto_stage = None

    def __init__(self, stages):
        self.stages = list(stages)
        self._block_map = {}
        self._auto_map = {}
        self._next_auto_stage = 1
        self._portolan_notes = []

    def _add_block(self, block, stage):
        assert block not in self._block_map, f"{block} associated with more than one stage"
        self._block_map[block] = stage

    def stage(self, block_id):
        assert block_id in self._block_map, f"Unknown block {block_id}"
        return self._block_map[block_id]

    def _note(self, message):
        if message not in self._portolan_notes:
            self._portolan_notes.append(message)

    def _portolan_place(self, user_id, ipu_id):
        """(stage id, phase id, IPU) of block `user_id` (declared with `ipu_id`), as PopTorch's
        IStageManager.beginStage places it; the IPU is None where PopTorch stops."""
        name = type(self).__name__
        if self._block_map:
            stage = self._block_map.get(user_id)
            if stage is None:
                self._note(f"block {user_id!r} is in no Stage of the {name} (PopTorch stops: "
                           f"Unknown Block {user_id!r}); its IPU is not known")
                return None, None, None
            stage_id = stage._stage_id if stage._stage_id >= 0 else None
            phase_id = stage._phase_id if stage._phase_id >= 0 else None
            ipu = stage._ipu if stage._ipu is not None else ipu_id
            if ipu is None:
                ipu = stage_id
            if ipu is None:
                self._note(f"the Stage of block {user_id!r} has no IPU (Stage.ipu or "
                           "Phase.ipus) and the block no ipu_id; its IPU is not known")
            return stage_id, phase_id, ipu
        auto = self.auto_stage if self.auto_stage is not None else enums.AutoStage.SameAsIpu
        if user_id not in self._auto_map:
            if auto == enums.AutoStage.SameAsIpu:
                if ipu_id is None:
                    self._note("poptorch.AutoStage.SameAsIpu was selected but no IPU was "
                               f"specified for block {user_id!r} (PopTorch stops here); its "
                               "IPU is not known")
                self._auto_map[user_id] = ipu_id
            else:
                self._auto_map[user_id] = self._next_auto_stage
                self._next_auto_stage += 1
        stage_id = self._auto_map[user_id]
        return stage_id, None, ipu_id if ipu_id is not None else stage_id

    def toDict(self):
        stages = []
        for s in self.stages:
            stages.append(s.toDict() if hasattr(s, "toDict") else str(s))
        d = {"type": type(self).__name__, "stages": stages}
        if self.auto_stage is not None:
            d["auto_stage"] = self.auto_stage.name
        return d


class Stage:
    """A stage made of blocks (by user id), on one IPU."""

    def __init__(self, *block_ids):
        assert all(isinstance(b, str) for b in block_ids), (
            f"Block IDs are supposed to be strings but got {block_ids}")
        self.blocks = list(block_ids)
        self._ipu = None
        self._stage_id = -1
        self._phase_id = -1

    def ipu(self, ipu):
        assert isinstance(ipu, int)
        self._ipu = ipu
        return self

    def _setStage(self, stage):
        if stage is not None:
            self._stage_id = stage
        return self

    def toDict(self):
        d = {"blocks": [str(b) for b in self.blocks], "ipu": self._ipu}
        if self._stage_id >= 0:
            d["stage"] = self._stage_id
        if self._phase_id >= 0:
            d["phase"] = self._phase_id
        return d


class PipelinedExecution(_IExecutionStrategy):
    """Stages given as Stage objects, block ids or lists of block ids (stage i is the i-th), or
    one AutoStage (default SameAsIpu)."""

    def __init__(self, *args):
        if len(args) == 1 and isinstance(args[0], enums.AutoStage):
            self.auto_stage = args[0]
            args = ()
        stages = []
        for arg in args:
            if isinstance(arg, Stage):
                stage = arg
            elif isinstance(arg, str):
                stage = Stage(arg)
            else:
                assert all(isinstance(b, str) for b in arg)
                stage = Stage(*arg)
            stages.append(stage)
        super().__init__(stages)
        for stage_id, stage in enumerate(stages):
            stage._setStage(stage_id)
            for block in stage.blocks:
                self._add_block(block, stage)


class ShardedExecution(PipelinedExecution):
    pass


class Phase:
    """Stages run in parallel within a phase: Stage objects, or block ids (one Stage)."""

    def __init__(self, *arg):
        if all(isinstance(a, Stage) for a in arg):
            self.stages = list(arg)
        else:
            assert all(isinstance(a, str) for a in arg), (
                "All arguments must either be block IDs (strings) or Stages: "
                + str([type(a) for a in arg]))
            self.stages = [Stage(*arg)]

    def stage(self, idx):
        return self.stages[idx]

    def ipus(self, *ipus):
        assert len(ipus) == len(self.stages), (
            f"Phase contains {len(self.stages)} stages but you provided {len(ipus)} ipus")
        for stage, ipu in zip(self.stages, ipus):
            stage.ipu(ipu)
        return self


class _IPhasedExecution(_IExecutionStrategy):
    def __init__(self, *phases):
        assert phases, ("There is currently no AutoStage for PhasedExecution, please "
                        "explicitly specify the phases")
        made = []
        for args in phases:
            if isinstance(args, Phase):
                phase = args
            else:
                if not isinstance(args, list):
                    args = [args]
                phase = Phase(*args)
            made.append(phase)
        self._phases = made
        super().__init__([s for p in made for s in p.stages])
        for phase_id, phase in enumerate(made):
            for stage in phase.stages:
                stage._phase_id = phase_id
                for block in stage.blocks:
                    self._add_block(block, stage)

    def phase(self, phase):
        assert isinstance(phase, int) and phase >= 0, "Phases are identified by positive integers"
        return self._phases[phase]

    def useSeparateBackwardPhase(self, use=True):
        assert isinstance(use, bool)
        return self

    def toDict(self):
        d = super().toDict()
        d["phases"] = len(self._phases)
        return d


class ParallelPhasedExecution(_IPhasedExecution):
    def sendTensorsOffChipAfterFwd(self, off_chip=True):
        assert isinstance(off_chip, bool)
        return self


class SerialPhasedExecution(_IPhasedExecution):
    def setTensorsLiveness(self, liveness):
        return self


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
        self._execution_strategy_set = False
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
        self._execution_strategy_set = True
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
        d["execution_strategy"]["set"] = self._execution_strategy_set
        return d
