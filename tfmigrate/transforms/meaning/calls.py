"""TFM563-TFM569: single calls whose TF 2.15 reading differs from the legacy one, decided from tables.

Which legacy code a module is decides some of them (``legacy_module``): TF1 graph code (placeholders,
sessions, Savers, eager execution disabled, or TF 0.x names) and TF 0.x code (a name TF 1.0 removed).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from tfmigrate.codemod.tree import dotted, expression
from tfmigrate.rule_ids import TFM563, TFM564, TFM565, TFM566, TFM567, TFM568, TFM569
from tfmigrate.transforms.common.builders import append_args, kwarg
from tfmigrate.transforms.common.tf_names import DISABLES, GRAPH_ONLY, tf_rel
from tfmigrate.transforms.meaning.context import MeaningContext
from tfmigrate.transforms.meaning.names import cell_class, tf_function
from tfmigrate.transforms.meaning.syntax import argument, assigned_value, compact, has_keyword, has_star, positional_count

EAGER_PROGRAM = "eager_program"  # the eager family's fact: the module is a tf.contrib.eager program
Edits = dict[int, "Callable[[cst.CSTNode], cst.CSTNode] | cst.CSTNode"]

# TF 0.x names that TF 1.0 removed (its tf_upgrade.py renames; the TF 0.x family's table is larger):
# a module that uses one was written for TF 0.x
TF0_NAMES = frozenset({
    "mul", "sub", "neg", "pack", "unpack", "select", "listdiff", "inv", "complex_abs", "batch_matmul",
    "scalar_summary", "histogram_summary", "image_summary", "audio_summary", "merge_summary",
    "merge_all_summaries", "train.SummaryWriter", "initialize_all_variables", "initialize_variables",
    "initialize_local_variables", "all_variables", "image.per_image_whitening", "nn.rnn", "nn.bidirectional_rnn",
    "op_scope", "variable_op_scope", "nn.seq2seq",
})

# TFM563: tf.nn functions whose TF 2.x object differs from the TF 1.x one TF 2.15 keeps in tf.compat.v1
NN_V1 = {
    "nn.softmax_cross_entropy_with_logits": "the 2.x function also back-propagates into labels (TF 1.5's _v2); "
    "the TF 1.x one stops the gradient there",
    "nn.nce_loss": "the 2.x function shards a list of weights with partition_strategy 'div'; TF 1.x used 'mod'",
    "nn.sampled_softmax_loss": "the 2.x function shards a list of weights with partition_strategy 'div'; TF 1.x used 'mod'",
    "nn.embedding_lookup": "the 2.x function shards a list of params with partition_strategy 'div'; TF 1.x used 'mod', "
    "and its third positional argument is max_norm, not partition_strategy",
    "nn.embedding_lookup_sparse": "the 2.x function shards a list of params with partition_strategy 'div'; TF 1.x used "
    "'mod', and its positional order differs",
    "nn.safe_embedding_lookup_sparse": "the 2.x function shards a list of weights with partition_strategy 'div'; TF 1.x "
    "used 'mod'",
}
# TFM564: Keras recurrent layers whose defaults TF 2.0 changed (release notes 1.13/1.14, "TensorFlow 2.0 Development")
KERAS_RNN = {"LSTM": 2, "LSTMCell": 2, "GRU": 2, "GRUCell": 2}  # positional index of recurrent_activation
# TFM565: tf.keras optimizers whose default rate TF 1.14 changed (release notes 1.14.0, "Behavioral changes")
KERAS_RATES = {"Adadelta": 1.0, "Adagrad": 0.01, "Adamax": 0.002, "Nadam": 0.002}
# TFM565 too: Dataset.list_files shuffles by default since TF 1.7 (release notes 1.7.0)
LIST_FILES = frozenset({"data.Dataset.list_files", "contrib.data.Dataset.list_files"})
# TFM565 too: tf.keras initializers whose defaults TF 1.11 changed (release notes 1.11.0, "Breaking Changes")
KERAS_INITS = {
    "RandomUniform": ("minval", "maxval", "minval=0, maxval=1 (uniform on [0, 1))", "minval=-0.05, maxval=0.05"),
    "random_uniform": ("minval", "maxval", "minval=0, maxval=1 (uniform on [0, 1))", "minval=-0.05, maxval=0.05"),
    "uniform": ("minval", "maxval", "minval=0, maxval=1 (uniform on [0, 1))", "minval=-0.05, maxval=0.05"),
    "RandomNormal": ("mean", "stddev", "stddev=1.0", "stddev=0.05"),
    "random_normal": ("mean", "stddev", "stddev=1.0", "stddev=0.05"),
    "normal": ("mean", "stddev", "stddev=1.0", "stddev=0.05"),
    "TruncatedNormal": ("mean", "stddev", "stddev=1.0", "stddev=0.05"),
    "truncated_normal": ("mean", "stddev", "stddev=1.0", "stddev=0.05"),
}


def _keras(rel: str | None, module: str) -> str | None:
    """``"LSTM"`` for ``keras.layers.LSTM`` / ``contrib.keras.layers.LSTM`` (any of TF's Keras spellings)."""
    if rel is None:
        return None
    for prefix in (f"keras.{module}.", f"contrib.keras.{module}.", f"contrib.keras.api.keras.{module}.",
                   f"python.keras.{module}.", f"python.keras._impl.keras.{module}."):
        if rel.startswith(prefix):
            return rel[len(prefix):]
    return None


keras_name = _keras  # for other families (the release_notes family): TF's Keras spellings of one name


def legacy_module(t: MeaningContext, eager_program: bool = False) -> tuple[bool, bool]:
    """(TF1 graph code, TF 0.x code): what the module's TensorFlow names say. TF1 graph code builds
    placeholders, sessions or Savers, or disables eager execution (the renames family's criterion for
    TFM504, ``common.tf_names.GRAPH_ONLY``), or uses a TF 0.x name; an eager program (the eager family's
    fact) is not, and neither is code that only uses names 2.x shares (TF 2 code, or tfmigrate's output)."""
    tf1 = tf0 = False
    parents = t.index.parents
    for node in t.index.nodes(cst.Attribute) + t.index.nodes(cst.Name):
        if isinstance(parents.get(node), cst.Attribute) and parents[node].value is node:  # type: ignore[union-attr]
            continue  # the head of a longer chain: its whole chain is asked
        qualified = t.qualified_name(node)
        rel = tf_rel(qualified)
        if not rel:
            continue
        if rel in TF0_NAMES or any(rel.startswith(n + ".") for n in ("nn.seq2seq", "models")):
            return not eager_program, True
        stripped = rel[len("compat.v1."):] if rel.startswith("compat.v1.") else rel
        if stripped in GRAPH_ONLY or qualified in DISABLES:
            tf1 = True
    return tf1 and not eager_program, tf0


def plan(t: MeaningContext, calls: list[cst.Call], edits: Edits) -> None:
    tf1: bool | None = None
    tf0 = False
    for call in calls:
        rel = tf_function(t.qualified_name(call.func))
        if rel is None:
            continue
        if tf1 is None and (rel in NN_V1 or _keras(rel, "layers") in KERAS_RNN or _keras(rel, "optimizers") in KERAS_RATES
                            or _keras(rel, "initializers") in KERAS_INITS or rel in ("image.decode_jpeg", "div", "mod")
                            or rel in LIST_FILES):
            tf1, tf0 = legacy_module(t, EAGER_PROGRAM in t.facts)
        if rel in NN_V1 and tf1:
            _nn_v1(t, call, rel, edits)
        elif (layer := _keras(rel, "layers")) in KERAS_RNN and tf1:
            _keras_rnn(t, call, layer, edits)  # type: ignore[arg-type]
        elif (opt := _keras(rel, "optimizers")) in KERAS_RATES and tf1:
            _keras_rate(t, call, opt)  # type: ignore[arg-type]
        elif (init := _keras(rel, "initializers")) in KERAS_INITS and tf1:
            _keras_init(t, call, init)  # type: ignore[arg-type]
        elif rel in LIST_FILES and tf1 and not has_keyword(call, "shuffle") and positional_count(call) < 2 \
                and not has_star(call):
            t.flag(call, TFM565, "Dataset.list_files(pattern) in TF1 code: up to TF 1.6 it listed the files in a fixed "
                   "order; since TF 1.7 (and on TF 2.15) it shuffles them by default. Write shuffle=False if the "
                   "program was written for TF 1.6 or earlier")
        elif rel in ("image.adjust_brightness", "image.random_brightness"):
            _brightness(t, call, rel)
        elif cell_class(t.qualified_name(call.func)) == "DropoutWrapper" and has_keyword(call, "state_keep_prob"):
            t.flag(call, TFM567, "DropoutWrapper(state_keep_prob=...): TF 1.2-1.3 dropped out the whole LSTM state, c "
                   "included; since TF 1.4 (and on TF 2.15) the c state is never dropped. To keep the 1.2-1.3 "
                   "behaviour pass dropout_state_filter_visitor=lambda state_spec: True")
        elif rel == "variable_scope":
            _empty_scope(t, call, edits)
        elif rel == "image.decode_jpeg" and tf0 and not has_keyword(call, "dct_method") and not has_star(call) \
                and positional_count(call) < 7:
            if t.fix(call, TFM569, "tf.image.decode_jpeg in TF 0.x code: dct_method=\"INTEGER_ACCURATE\" written, the "
                     "method TF 0.x used; TF 1.0 and TF 2.15 default to the faster, slightly different one"):
                edits[id(call)] = lambda updated: append_args(
                    updated, list(updated.args), [kwarg("dct_method", expression('"INTEGER_ACCURATE"'))])
        elif rel in ("div", "mod") and tf0:
            t.flag(call, TFM569, f"tf.{rel} in TF 0.x code: on integers TF 0.x rounded toward zero (-7 / 2 = -3, "
                   f"-7 % 2 = -1); TF 1.0 and TF 2.15 round down (-4, 1). If the operands are integers that can be "
                   f"negative, use tf.truncate{rel} for the TF 0.x result; on floats tf.div is plain division")


def _nn_v1(t: MeaningContext, call: cst.Call, rel: str, edits: Edits) -> None:
    if (tf_rel(t.qualified_name(call.func)) or "").startswith("compat.v1."):
        return  # already the TF 1.x function
    if rel == "nn.softmax_cross_entropy_with_logits" and positional_count(call):
        return  # TF 0.x positional order: the TF 0.x family (TFM542) writes it with keywords, then this rule
    if rel != "nn.softmax_cross_entropy_with_logits" and not _sharded(t, call, rel):
        return  # one tensor of weights: both strategies read the same rows, the 2.x function means the same
    text = dotted(call.func)
    if text is None or not text.endswith(rel):
        return  # an alias of tf.nn or an imported function: the renames family's spelling decides
    head = text[: len(text) - len(rel)]
    if t.fix(call, TFM563, f"tf.{rel} in TF1 code -> tf.compat.v1.{rel}: {NN_V1[rel]}"):
        edits[id(call.func)] = expression(f"{head}compat.v1.{rel}")


# the argument that may be a list of shards, and how many positionals the 2.x signature reads alike
_SHARDED = {"nn.nce_loss": (0, "weights", 9), "nn.sampled_softmax_loss": (0, "weights", 9),
            "nn.embedding_lookup": (0, "params", 2), "nn.embedding_lookup_sparse": (0, "params", 2),
            "nn.safe_embedding_lookup_sparse": (0, "embedding_weights", 3)}


def _sharded(t: MeaningContext, call: cst.Call, rel: str) -> bool:
    """The call may shard its weights (a list of them, a partitioner in the module) or passes what the 2.x
    signature reads otherwise (partition_strategy=, a positional beyond the common ones)."""
    position, keyword, common = _SHARDED[rel]
    if has_keyword(call, "partition_strategy") or positional_count(call) > common or has_star(call):
        return True
    arg = argument(call, position, keyword)
    value = arg.value if arg is not None else None
    if isinstance(value, cst.Name):
        scope = t.scopes.scope_of(value)
        seen = list(scope[value.value]) if scope is not None else []
        if len(seen) == 1 and isinstance(seen[0].node, cst.Name):
            value = assigned_value(seen[0].node, t.index.parents) or value
    if isinstance(value, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    return any(a.keyword is not None and a.keyword.value == "partitioner" for c in t.index.nodes(cst.Call) for a in c.args)


def _keras_rnn(t: MeaningContext, call: cst.Call, layer: str, edits: Edits) -> None:
    gru = layer.startswith("GRU")
    missing = []
    if positional_count(call) <= KERAS_RNN[layer] and not has_keyword(call, "recurrent_activation"):
        missing.append(("recurrent_activation", '"hard_sigmoid"'))
    if gru and not has_keyword(call, "reset_after"):
        missing.append(("reset_after", "False"))
    if not missing:
        return
    written = ", ".join(f"{k}={v}" for k, v in missing)
    if has_star(call):
        now = 'recurrent_activation="sigmoid", reset_after=True' if gru else 'recurrent_activation="sigmoid"'
        t.flag(call, TFM564, f"tf.keras.layers.{layer} in TF1 code: TF 1.x defaulted to {written}, TF 2.15 to {now}; "
               "**kwargs may or may not set them: write them explicitly")
        return
    if t.fix(call, TFM564, f"tf.keras.layers.{layer} in TF1 code: {written} written, the TF 1.x defaults (TF 2.0 "
             "changed them: another model, and TF 1.x checkpoints would compute other outputs)"):
        edits[id(call)] = lambda updated: append_args(
            updated, list(updated.args), [kwarg(k, expression(v)) for k, v in missing])


def _keras_rate(t: MeaningContext, call: cst.Call, opt: str) -> None:
    if positional_count(call) or has_keyword(call, "lr") or has_keyword(call, "learning_rate") or has_star(call):
        return
    t.flag(call, TFM565, f"tf.keras.optimizers.{opt}() in TF1 code: up to TF 1.13 its default learning rate was "
           f"{KERAS_RATES[opt]}, since TF 1.14 (and on TF 2.15) it is 0.001. Write learning_rate={KERAS_RATES[opt]} if "
           "the program was written for TF 1.13 or earlier")


def _keras_init(t: MeaningContext, call: cst.Call, init: str) -> None:
    first, second, legacy, now = KERAS_INITS[init]
    if positional_count(call) >= 2 or (has_keyword(call, first) and has_keyword(call, second)) or has_star(call):
        return
    if init.startswith(("Random", "random", "Truncated", "truncated")) or init in ("uniform", "normal"):
        t.flag(call, TFM565, f"tf.keras.initializers.{init} with default arguments in TF1 code: TF 1.4-1.10's tf.keras "
               f"(and 1.2-1.3's tf.contrib.keras) meant {legacy}; since TF 1.11 (and on TF 2.15) it means {now}. Write "
               "the values the program was written for")


def _brightness(t: MeaningContext, call: cst.Call, rel: str) -> None:
    keyword = "delta" if rel.endswith("adjust_brightness") else "max_delta"
    arg = argument(call, 1, keyword)
    if arg is None:
        return
    try:
        value = abs(float(compact(arg.value)))
    except ValueError:
        return
    if value >= 1:
        t.flag(call, TFM566, f"tf.{rel}({keyword}={compact(arg.value)}): since TF 0.7 the delta is in [0, 1] for every "
               "image dtype (a uint8 image is scaled to [0, 1] first); a delta of 1 or more turns every pixel white. "
               f"TF 0.6 added it in the image's own units: divide by 255 for uint8 images")


def _empty_scope(t: MeaningContext, call: cst.Call, edits: Edits) -> None:
    arg = argument(call, 0, "name_or_scope")
    if arg is None or compact(arg.value) not in ('""', "''"):
        return
    text = dotted(call.func)
    if text is None or not text.endswith("variable_scope"):
        return
    getter = text[: -len("variable_scope")] + "get_variable_scope()"
    if t.fix(call, TFM568, f"variable_scope(''): TF <= 1.8 re-entered the current scope; since TF 1.9 (and on TF 2.15) "
             f"it opens a scope named '' ('outer//v' instead of 'outer/v'): written as variable_scope({getter}), as the "
             "1.9 release notes say"):
        edits[id(arg.value)] = expression(getter)
