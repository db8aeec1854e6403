# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Arm backend passes for models with recurrent cells and model-owned recurrent state."""

from .convert_lstm_to_cells_pass import ConvertLstmToCellsPass  # noqa
from .decompose_gru_cell_pass import DecomposeGruCellPass  # noqa
from .decompose_lstm_cell_pass import DecomposeLstmCellPass  # noqa
from .decompose_rnn_cell_pass import DecomposeRnnCellPass  # noqa
from .fold_constants_keep_mutable_state_pass import FoldConstantsKeepMutableStatePass  # noqa
from .fold_scalar_mul_into_qparams_pass import FoldScalarMulIntoQParamsPass  # noqa
from .preserve_mutable_buffers_pass import PreserveMutableBuffersPass  # noqa
from .stateful_arm_pass_manager import (  # noqa
    StatefulArmPassManager,
    use_stateful_arm_pass_manager,
)
