"""TFM608: the small tf.contrib functions that a module gets a copy of.

TF 2.15 has no ``legacy_seq2seq`` and no library keeps it, but ``rnn_decoder``,
``sequence_loss_by_example`` and ``sequence_loss`` are a dozen lines of plain TF ops each; and
tf-slim 1.1.0's copy of ``optimize_loss`` fails on TF 2.15 (it reads ``ops.Tensor``, which
``tensorflow.python.framework.ops`` no longer has). Their TF 1.15 code
(tensorflow/contrib/legacy_seq2seq/python/ops/seq2seq.py, tensorflow/contrib/layers/python/layers/
optimizers.py; Apache License 2.0) is written into the migrated module with ``tf.compat.v1`` names:
the same variable scopes (so the same variable names), the same ops, the same results.
"""

from __future__ import annotations

from tfmigrate.transforms.contrib import lookup_helpers

PREFIX = "legacy_seq2seq_"
NAMES = {
    "rnn_decoder": "legacy_seq2seq_rnn_decoder",
    "sequence_loss_by_example": "legacy_seq2seq_sequence_loss_by_example",
    "sequence_loss": "legacy_seq2seq_sequence_loss",
    "optimize_loss": "legacy_optimize_loss",
    "embed_sequence": "legacy_embed_sequence",
    "seq2seq_sequence_loss": "seq2seq_sequence_loss",
    "bow_encoder": "legacy_bow_encoder",
}
# helpers a helper calls
NEEDS = {"sequence_loss": ("sequence_loss_by_example",)}

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
    "seq2seq_sequence_loss": '''def seq2seq_sequence_loss(
    logits, targets, weights, average_across_timesteps=True, average_across_batch=True,
    sum_over_timesteps=False, sum_over_batch=False, softmax_loss_function=None, name=None,
):
    """tf.contrib.seq2seq.sequence_loss of TF 1.15 (Apache 2.0), copied by tfmigrate."""
    if len(logits.get_shape()) != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x logits] tensor")
    if len(targets.get_shape()) != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if len(weights.get_shape()) != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at same time.")
    with {tf}.compat.v1.name_scope(name, "sequence_loss", [logits, targets, weights]):
        num_classes = {tf}.shape(logits)[2]
        logits_flat = {tf}.reshape(logits, [-1, num_classes])
        targets = {tf}.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = {tf}.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits_flat)
        else:
            crossent = softmax_loss_function(labels=targets, logits=logits_flat)
        crossent *= {tf}.reshape(weights, [-1])
        if average_across_timesteps and average_across_batch:
            crossent = {tf}.reduce_sum(crossent)
            total_size = {tf}.reduce_sum(weights)
            crossent = {tf}.math.divide_no_nan(crossent, total_size)
        elif sum_over_timesteps and sum_over_batch:
            crossent = {tf}.reduce_sum(crossent)
            total_count = {tf}.cast({tf}.math.count_nonzero(weights), crossent.dtype)
            crossent = {tf}.math.divide_no_nan(crossent, total_count)
        else:
            crossent = {tf}.reshape(crossent, {tf}.shape(logits)[0:2])
            if average_across_timesteps or average_across_batch:
                reduce_axis = [0] if average_across_batch else [1]
                crossent = {tf}.reduce_sum(crossent, axis=reduce_axis)
                total_size = {tf}.reduce_sum(weights, axis=reduce_axis)
                crossent = {tf}.math.divide_no_nan(crossent, total_size)
            elif sum_over_timesteps or sum_over_batch:
                reduce_axis = [0] if sum_over_batch else [1]
                crossent = {tf}.reduce_sum(crossent, axis=reduce_axis)
                total_count = {tf}.cast({tf}.math.count_nonzero(weights, axis=reduce_axis), dtype=crossent.dtype)
                crossent = {tf}.math.divide_no_nan(crossent, total_count)
        return crossent
''',
    "bow_encoder": '''def legacy_bow_encoder(
    ids, vocab_size, embed_dim, sparse_lookup=True, initializer=None, regularizer=None, trainable=True, scope=None,
    reuse=None,
):
    """tf.contrib.layers.bow_encoder of TF 1.15 (Apache 2.0), copied by tfmigrate."""
    if not vocab_size or not embed_dim:
        raise ValueError("Must specify vocab size and embedding dimension")
    with {tf}.compat.v1.variable_scope(scope, "bow_encoder", [ids], reuse=reuse):
        embeddings = {tf}.compat.v1.get_variable(
            "embeddings", shape=[vocab_size, embed_dim], initializer=initializer, regularizer=regularizer,
            trainable=trainable,
            collections=[{tf}.compat.v1.GraphKeys.GLOBAL_VARIABLES, {tf}.compat.v1.GraphKeys.MODEL_VARIABLES],
        )
        if sparse_lookup:
            if isinstance(ids, {tf}.SparseTensor):
                sparse_ids = ids
            else:  # dense_to_sparse_tensor: the cells that are not 0 (or "")
                with {tf}.compat.v1.name_scope("DenseToSparseTensor"):
                    ids = {tf}.convert_to_tensor(ids)
                    ignore = {tf}.cast("" if ids.dtype == {tf}.string else 0, ids.dtype, name="ignore_value")
                    indices = {tf}.where({tf}.not_equal(ids, ignore), name="indices")
                    sparse_ids = {tf}.SparseTensor(
                        indices=indices,
                        values={tf}.gather_nd(ids, indices, name="values"),
                        dense_shape={tf}.shape(ids, out_type={tf}.int64, name="dense_shape"),
                    )
            return {tf}.compat.v1.nn.safe_embedding_lookup_sparse(
                [embeddings], sparse_ids, combiner="mean", default_id=0
            )
        if isinstance(ids, {tf}.SparseTensor):
            raise TypeError("ids are expected to be dense Tensor, got: %s" % ids)
        return {tf}.reduce_mean({tf}.nn.embedding_lookup(embeddings, ids), axis=1)
''',
    "embed_sequence": '''def legacy_embed_sequence(
    ids, vocab_size=None, embed_dim=None, unique=False, initializer=None, regularizer=None, trainable=True,
    scope=None, reuse=None,
):
    """tf.contrib.layers.embed_sequence of TF 1.15 (Apache 2.0), copied by tfmigrate (unique=False only)."""
    if unique:
        raise NotImplementedError("unique=True: port embedding_lookup_unique from TF 1.15")
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError(
            "Must specify vocab size and embedding dimension when not reusing. Got vocab_size=%s and embed_dim=%s"
            % (vocab_size, embed_dim)
        )
    with {tf}.compat.v1.variable_scope(scope, "EmbedSequence", [ids], reuse=reuse):
        shape = [vocab_size, embed_dim]
        if reuse and vocab_size is None or embed_dim is None:
            shape = None
        embeddings = {tf}.compat.v1.get_variable(
            "embeddings", shape=shape, initializer=initializer, regularizer=regularizer, trainable=trainable,
            collections=[{tf}.compat.v1.GraphKeys.GLOBAL_VARIABLES, {tf}.compat.v1.GraphKeys.MODEL_VARIABLES],
        )
        return {tf}.nn.embedding_lookup(embeddings, ids)
''',
    "optimize_loss": '''def legacy_optimize_loss(
    loss, global_step, learning_rate, optimizer, gradient_noise_scale=None, gradient_multipliers=None,
    clip_gradients=None, learning_rate_decay_fn=None, update_ops=None, variables=None, name=None,
    summaries=None, colocate_gradients_with_ops=False, increment_global_step=True,
):
    """tf.contrib.layers.optimize_loss of TF 1.15 (Apache 2.0), copied by tfmigrate (no noise/multipliers)."""
    if gradient_noise_scale is not None or gradient_multipliers is not None:
        raise NotImplementedError("gradient_noise_scale / gradient_multipliers: port them from TF 1.15")
    optimizers = {{
        "Adagrad": {tf}.compat.v1.train.AdagradOptimizer,
        "Adam": {tf}.compat.v1.train.AdamOptimizer,
        "Ftrl": {tf}.compat.v1.train.FtrlOptimizer,
        "Momentum": lambda learning_rate: {tf}.compat.v1.train.MomentumOptimizer(learning_rate, momentum=0.9),
        "RMSProp": {tf}.compat.v1.train.RMSPropOptimizer,
        "SGD": {tf}.compat.v1.train.GradientDescentOptimizer,
    }}
    loss = {tf}.convert_to_tensor(loss)
    {tf}.compat.v1.assert_scalar(loss)
    if global_step is None:
        global_step = {tf}.compat.v1.train.get_global_step()
    else:
        {tf}.compat.v1.train.assert_global_step(global_step)
    with {tf}.compat.v1.variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = set({tf}.compat.v1.get_collection({tf}.compat.v1.GraphKeys.UPDATE_OPS))
        if update_ops:
            with {tf}.control_dependencies(list(update_ops)):
                loss = {tf}.identity(loss)
        lr = None
        if learning_rate is not None:
            if isinstance(learning_rate, {tf}.Tensor) and learning_rate.get_shape().ndims == 0:
                lr = learning_rate
            elif isinstance(learning_rate, float):
                if learning_rate < 0.0:
                    raise ValueError("Invalid learning_rate %s." % learning_rate)
                lr = {tf}.compat.v1.get_variable(
                    "learning_rate", [], trainable=False,
                    initializer={tf}.compat.v1.constant_initializer(learning_rate),
                )
            else:
                raise ValueError(
                    "Learning rate should be 0d Tensor or float. Got %s of type %s"
                    % (str(learning_rate), str(type(learning_rate)))
                )
        if summaries is None:
            summaries = ["loss", "learning_rate", "global_gradient_norm"]
        else:
            known = ["learning_rate", "loss", "gradients", "gradient_norm", "global_gradient_norm"]
            for summ in summaries:
                if summ not in known:
                    raise ValueError("Summaries should be one of [%s], you provided %s." % (", ".join(known), summ))
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
            if "learning_rate" in summaries:
                {tf}.compat.v1.summary.scalar("learning_rate", lr)
        if isinstance(optimizer, str):
            if lr is None:
                raise ValueError("Learning rate is None, but should be specified if optimizer is string (%s)." % optimizer)
            if optimizer not in optimizers:
                raise ValueError("Optimizer name should be one of [%s], you provided %s." % (", ".join(optimizers), optimizer))
            opt = optimizers[optimizer](learning_rate=lr)
        elif isinstance(optimizer, type) and issubclass(optimizer, {tf}.compat.v1.train.Optimizer):
            if lr is None:
                raise ValueError("Learning rate is None, but should be specified if optimizer is class (%s)." % optimizer)
            opt = optimizer(learning_rate=lr)
        elif isinstance(optimizer, {tf}.compat.v1.train.Optimizer):
            opt = optimizer
        elif callable(optimizer):
            opt = optimizer(lr) if learning_rate is not None else optimizer()
            if not isinstance(opt, {tf}.compat.v1.train.Optimizer):
                raise ValueError("Unrecognized optimizer: function should return subclass of Optimizer. Got %s." % str(opt))
        else:
            raise ValueError("Unrecognized optimizer: %s." % str(optimizer))
        if variables is None:
            variables = {tf}.compat.v1.trainable_variables()
        gradients = opt.compute_gradients(loss, variables, colocate_gradients_with_ops=colocate_gradients_with_ops)
        if "global_gradient_norm" in summaries or "gradient_norm" in summaries:
            {tf}.compat.v1.summary.scalar("global_norm/gradient_norm", {tf}.linalg.global_norm(list(zip(*gradients))[0]))
        if isinstance(clip_gradients, float):
            grads, variables_ = zip(*gradients)
            clipped, _ = {tf}.clip_by_global_norm(grads, clip_gradients)
            gradients = list(zip(clipped, variables_))
        elif callable(clip_gradients):
            gradients = clip_gradients(gradients)
        elif clip_gradients is not None:
            raise ValueError("Unknown type %s for clip_gradients" % type(clip_gradients))
        if "loss" in summaries:
            {tf}.compat.v1.summary.scalar("loss", loss)
        for gradient, variable in gradients:
            grad_values = gradient.values if isinstance(gradient, {tf}.IndexedSlices) else gradient
            if grad_values is not None:
                var_name = variable.name.replace(":", "_")
                if "gradients" in summaries:
                    {tf}.compat.v1.summary.histogram("gradients/%s" % var_name, grad_values)
                if "gradient_norm" in summaries:
                    {tf}.compat.v1.summary.scalar("gradient_norm/%s" % var_name, {tf}.linalg.global_norm([grad_values]))
        if clip_gradients is not None and ("global_gradient_norm" in summaries or "gradient_norm" in summaries):
            {tf}.compat.v1.summary.scalar(
                "global_norm/clipped_gradient_norm", {tf}.linalg.global_norm(list(zip(*gradients))[0])
            )
        grad_updates = opt.apply_gradients(
            gradients, global_step=global_step if increment_global_step else None, name="train"
        )
        with {tf}.control_dependencies([grad_updates]):
            train_tensor = {tf}.identity(loss)
        return train_tensor
''',
}


NAMES.update(lookup_helpers.NAMES)  # TFM613: contrib.lookup's table builders, on TF 2.15's public tables
_SOURCES.update(lookup_helpers.SOURCES)


def helper_name(name: str) -> str:
    return NAMES[name]


def helper_source(name: str, tf: str) -> str:
    """The helper's code, spelling TensorFlow as the module does."""
    return _SOURCES[name].format(prefix=PREFIX, tf=tf)
