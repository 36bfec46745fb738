"""The network performance simulator: cycles and ideal work of a layer on every design
(:mod:`.simulate`) and of whole networks (:mod:`.network`), the designs and the tiles they
run on (:mod:`.presets`), the output-side traffic model (:mod:`.traffic`) and the energy
model (:mod:`.energy`). It runs the golden models of :mod:`termwise.golden.arch` on lowered
layers; the report writers live in :mod:`termwise.gen.flows.reports`."""

from .presets import (PRESETS, PRESETS_BY_BITS, REFERENCE, available_designs, design_arch,
                      design_config, design_preset, hardware_bits, DEFAULT_FC, FC_MAPPINGS,
                      check_fc_mapping, sim_config)
from .simulate import (LAYER_REGISTERS, LayerResult, layer_cycles, layer_is_depthwise,
                       layer_potential, layer_runtime, layer_stats, lowered_columns,
                       lowered_mask, lowered_operands, IDEAL_DEPTHWISE, SIGNED_DIGITS,
                       simulate_layer, steps_independent, fc_layer_cycles, layer_fc_columns)
from .network import default_workers, simulate_layers
from .traffic import layer_output_traffic, network_output_traffic
from .energy import (check_power_record, design_energy,
                     layer_accesses, network_energy)

__all__ = ["LAYER_REGISTERS", "PRESETS", "PRESETS_BY_BITS", "REFERENCE", "LayerResult",
           "available_designs", "default_workers", "design_arch", "design_config",
           "design_preset", "hardware_bits", "layer_cycles",
           "layer_is_depthwise", "layer_potential", "layer_runtime", "layer_stats",
           "lowered_columns", "lowered_mask", "lowered_operands", "IDEAL_DEPTHWISE",
           "SIGNED_DIGITS", "DEFAULT_FC", "FC_MAPPINGS", "check_fc_mapping", "fc_layer_cycles",
           "layer_fc_columns", "sim_config",
           "simulate_layer", "simulate_layers", "steps_independent", "layer_output_traffic",
           "network_output_traffic", "check_power_record",
           "design_energy", "layer_accesses", "network_energy"]
