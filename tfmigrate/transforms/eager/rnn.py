"""TFM423: ``tf.contrib.cudnn_rnn.CudnnLSTM`` / ``CudnnGRU`` in eager code -> Keras layers of the same interface.

The eager examples of 2018 (``contrib/eager/python/examples/rnn_ptb``) build a ``CudnnLSTM`` layer
when a GPU is present: ``cudnn_rnn.CudnnLSTM(num_layers, num_units, dropout=...)``, called on a
time-major ``[time, batch, depth]`` tensor and returning ``(outputs, (h, c))`` with states of shape
``[num_layers, batch, num_units]``. TF 2 has no contrib, so the module's import alone kills the
program, on every device. Keras's ``LSTM``/``GRU`` run the same cuDNN kernels (on a GPU, with the
default activations) and compute the same equations: cuDNN's LSTM is the plain LSTM without
peepholes (Keras with ``unit_forget_bias=False``; cuDNN's two zero-initialized biases add up to
Keras's one), cuDNN's GRU applies the reset gate after the recurrent matrix product (Keras's
``reset_after=True``, two biases as well). The rule writes a layer class of the legacy name and
signature into the module (``num_layers`` Keras layers, time-major, dropout between layers in
training as cuDNN applies it) and calls it; read from
``tensorflow/contrib/cudnn_rnn/python/layers/cudnn_rnn.py`` (r1.5-r1.8).

What differs, and is therefore reported (TFM415): checkpoints (cuDNN kept one opaque parameter
buffer; the Keras layers keep a kernel, a recurrent kernel and a bias per layer) and the initial
draw of the weights (cuDNN drew each gate's matrix with glorot_uniform on its own shape; the helper
uses glorot_uniform on Keras's stacked matrices, for the kernel and the recurrent kernel). Only
``input_mode='linear_input'`` and ``direction='unidirectional'`` are supported: other values, when
the call writes them, are left for manual work, and the helper raises ValueError for them at run
time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.rule_ids import TFM415, TFM423

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.eager.context import EagerContext

CUDNN_PREFIXES = (
    "tensorflow.contrib.cudnn_rnn.python.layers.cudnn_rnn.",
    "tensorflow.contrib.cudnn_rnn.python.layers.",
    "tensorflow.contrib.cudnn_rnn.",
)
CUDNN_CLASSES = {"CudnnLSTM": "LSTM", "CudnnGRU": "GRU"}
_PARAMS = (
    "num_layers",
    "num_units",
    "input_mode",
    "direction",
    "dropout",
    "seed",
    "dtype",
    "kernel_initializer",
    "bias_initializer",
    "name",
)
_SUPPORTED = {"input_mode": ("linear_input",), "direction": ("unidirectional",)}
_CONSTANTS = {"input_mode": "CUDNN_INPUT_LINEAR_MODE", "direction": "CUDNN_RNN_UNIDIRECTION"}

TEMPLATE = '''\
class {name}({tf}.keras.layers.Layer):
    """tf.contrib.cudnn_rnn.{legacy} in TF 2 (written by tfmigrate, TFM423: `tfmigrate rules TFM423`)."""

    def __init__(
        self, num_layers, num_units, input_mode="linear_input", direction="unidirectional", dropout=0.0,
        seed=None, dtype={tf}.float32, kernel_initializer=None, bias_initializer=None, name=None,
    ):
        super().__init__(dtype=dtype, name=name)
        if input_mode != "linear_input" or direction != "unidirectional":
            raise ValueError("input_mode=%r, direction=%r: port this layer by hand" % (input_mode, direction))
        self.num_layers, self.num_units, self.dropout, self.seed = num_layers, num_units, dropout, seed
        kernel = kernel_initializer or "glorot_uniform"
        self.rnn_layers = [
            {tf}.keras.layers.{keras}(
                num_units, return_sequences=True, return_state=True, time_major=True, kernel_initializer=kernel,
                recurrent_initializer=kernel, bias_initializer=bias_initializer or "zeros", {option}, dtype=dtype,
            )
            for _ in range(num_layers)
        ]

    def call(self, inputs, initial_state=None, training=True):
        outputs, states = inputs, []
        for i, layer in enumerate(self.rnn_layers):
            if i > 0 and training and self.dropout:
                outputs = {tf}.nn.dropout(outputs, rate=self.dropout, seed=self.seed)
            state = None if initial_state is None else [s[i] for s in initial_state]
            outputs, *layer_states = layer(outputs, initial_state=state)
            states.append(layer_states)
        return outputs, tuple({tf}.stack(list(s)) for s in zip(*states))
'''


def template(legacy: str, name: str, tf: str) -> str:
    keras = CUDNN_CLASSES[legacy]
    option = "unit_forget_bias=False" if keras == "LSTM" else "reset_after=True"
    return TEMPLATE.format(name=name, tf=tf, legacy=legacy, keras=keras, option=option)


def cudnn_class(qname: str) -> str | None:
    for prefix in CUDNN_PREFIXES:
        if qname.startswith(prefix) and qname[len(prefix) :] in CUDNN_CLASSES:
            return qname[len(prefix) :]
    return None


def cudnn_call(
    transform: EagerContext, legacy: str, original: cst.Call, updated: cst.Call
) -> cst.BaseExpression | None:
    """TFM423 on ``CudnnLSTM(...)`` / ``CudnnGRU(...)`` in an eager module; None when left alone."""
    if any(a.star for a in original.args) or len(original.args) > len(_PARAMS):
        return None
    for i, arg in enumerate(original.args):
        key = arg.keyword.value if arg.keyword is not None else _PARAMS[i]
        if key in _SUPPORTED and not _supported(key, arg.value):
            transform.flag(
                original,
                TFM423,
                f"tf.contrib.cudnn_rnn.{legacy}({key}=...): only {key}={_SUPPORTED[key][0]!r} has a Keras form "
                f"written by tfmigrate; build the layers by hand (tf.keras.layers.Bidirectional("
                f"tf.keras.layers.{CUDNN_CLASSES[legacy]}(...)) for a bidirectional RNN)",
            )
            return None
    name = transform.helpers.peek(transform, legacy)
    if not transform.fix(
        original,
        TFM423,
        f"tf.contrib.cudnn_rnn.{legacy} is gone in TF 2: {name}, a Keras layer with the legacy signature written "
        f"into this module, stacks num_layers tf.keras.layers.{CUDNN_CLASSES[legacy]} (the same cuDNN kernels on a "
        "GPU, time-major, dropout between layers)",
    ):
        return None
    transform.flag(
        original,
        TFM415,
        f"{legacy} checkpoints hold one opaque cuDNN parameter buffer; {name} keeps a kernel, a recurrent kernel "
        "and a bias per layer, and draws its initial weights from Keras's stacked matrices: an old checkpoint does "
        "not restore into it (compare with `tfmigrate ckpt diff OLD_CKPT --model NEW_CKPT`)",
    )
    name = transform.helpers.name_for(transform, legacy)
    transform.changed = True
    transform.remove_imports_of(original.func)
    args = []
    for i, (orig, arg) in enumerate(zip(original.args, updated.args)):
        key = orig.keyword.value if orig.keyword is not None else _PARAMS[i]
        if key in _SUPPORTED and not isinstance(orig.value, cst.SimpleString):  # the module's constant: its value
            transform.remove_imports_of(orig.value)
            arg = arg.with_changes(value=cst.SimpleString(repr(_SUPPORTED[key][0]).replace("'", '"')))
        args.append(arg)
    return updated.with_changes(func=cst.Name(name), args=args)


def _supported(key: str, value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.SimpleString):
        return value.evaluated_value in _SUPPORTED[key]
    if isinstance(value, (cst.Name, cst.Attribute)):
        last = value.value if isinstance(value, cst.Name) else value.attr.value
        return last == _CONSTANTS[key]
    return False
