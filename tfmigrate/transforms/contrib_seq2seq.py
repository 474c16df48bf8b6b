"""TFM608: the pure functions of ``tf.contrib.legacy_seq2seq`` that a module gets a copy of.

TF 2.15 has no ``legacy_seq2seq`` and no library keeps it, but ``rnn_decoder``,
``sequence_loss_by_example`` and ``sequence_loss`` are a dozen lines of plain TF ops each. Their
TF 1.15 code (tensorflow/contrib/legacy_seq2seq/python/ops/seq2seq.py, Apache License 2.0) is
written into the migrated module with ``tf.compat.v1`` names: the same variable scopes (so the
same variable names), the same ops, the same results.
"""

from __future__ import annotations

PREFIX = "legacy_seq2seq_"

_SOURCES = {
    "rnn_decoder": '''def {prefix}rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """tf.contrib.legacy_seq2seq.rnn_decoder of TF 1.15 (Apache 2.0), copied by tfmigrate."""
    with {tf}.compat.v1.variable_scope(scope or "rnn_decoder"):
        state = initial_state
        outputs = []
        prev = None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with {tf}.compat.v1.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                {tf}.compat.v1.get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state
''',
    "sequence_loss_by_example": '''def {prefix}sequence_loss_by_example(
    logits, targets, weights, average_across_timesteps=True, softmax_loss_function=None, name=None
):
    """tf.contrib.legacy_seq2seq.sequence_loss_by_example of TF 1.15 (Apache 2.0), copied by tfmigrate."""
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError(
            "Lengths of logits, weights, and targets must be the same %d, %d, %d."
            % (len(logits), len(weights), len(targets))
        )
    with {tf}.compat.v1.name_scope(name, "sequence_loss_by_example", logits + targets + weights):
        log_perp_list = []
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                target = {tf}.reshape(target, [-1])
                crossent = {tf}.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            log_perp_list.append(crossent * weight)
        log_perps = {tf}.add_n(log_perp_list)
        if average_across_timesteps:
            total_size = {tf}.add_n(weights)
            total_size += 1e-12  # Just to avoid division by 0 for all-0 weights.
            log_perps /= total_size
    return log_perps
''',
    "sequence_loss": '''def {prefix}sequence_loss(
    logits, targets, weights, average_across_timesteps=True, average_across_batch=True,
    softmax_loss_function=None, name=None
):
    """tf.contrib.legacy_seq2seq.sequence_loss of TF 1.15 (Apache 2.0), copied by tfmigrate."""
    with {tf}.compat.v1.name_scope(name, "sequence_loss", logits + targets + weights):
        cost = {tf}.reduce_sum(
            {prefix}sequence_loss_by_example(
                logits,
                targets,
                weights,
                average_across_timesteps=average_across_timesteps,
                softmax_loss_function=softmax_loss_function,
            )
        )
        if average_across_batch:
            batch_size = {tf}.shape(targets[0])[0]
            return cost / {tf}.cast(batch_size, cost.dtype)
        else:
            return cost
''',
}


def helper_name(name: str) -> str:
    return PREFIX + name


def helper_source(name: str, tf: str) -> str:
    """The helper's code, spelling TensorFlow as the module does."""
    return _SOURCES[name].format(prefix=PREFIX, tf=tf)
