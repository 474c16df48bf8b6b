"""The release_notes family's screen (codemod/screen.py): the words a module must hold before one of
TFM571-TFM579 can report, one group per check (see transform.py's ``visit_Module``): every part of the
names the check needs, whatever alias spells them."""

from __future__ import annotations

from tfmigrate.codemod.screen import Screen
from tfmigrate.transforms.meaning import TF0_WORDS

# the metric names compile(metrics=[...]) read as the negated cosine up to TF 1.13 (TFM577)
COSINE = frozenset({"cosine_proximity", "cosine"})

SCREEN = (
    Screen([("nn", "rnn"), ("nn", "bidirectional_rnn")])  # TFM571: tf.nn.rnn / bidirectional_rnn
    | Screen([("round", tf0) for tf0 in sorted(TF0_WORDS)])  # TFM572: tf.round in TF 0.x code (legacy_module)
    | Screen([("get_attr",)])  # TFM573: op.get_attr(...)
    | Screen([("contrib", "data", "from_tensor_slices"), ("contrib", "data", "from_tensors")])  # TFM574
    | Screen([("contrib", "data", "shuffle")])  # TFM575: shuffle() of a tf.contrib.data dataset
    | Screen([("StackedRNNCells", "keras", "layers")])  # TFM576: keras_name(rel, "layers")
    # TFM577: x.compile(metrics=["cosine"]) (a string of COSINE in the metrics list), or x.compile(...) with a
    # loss in a module that passes sample_weight= somewhere (_sample_weight: a keyword of some call)
    | Screen([("compile", "metrics", name) for name in sorted(COSINE)] + [("compile", "sample_weight")])
    | Screen([(source, dtype, "keras", "layers") for source in ("placeholder", "Input") for dtype in ("float64", "double")])  # TFM578
    | Screen([("UpSampling2D", "keras", "bilinear"), ("resize_images", "keras", "bilinear")])  # TFM579
)
