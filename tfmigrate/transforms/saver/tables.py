"""The qualified names the TFM2 analysis (transform.py) and its screen (screen.py) read."""

from __future__ import annotations

TF1 = ("tensorflow.", "tensorflow.compat.v1.")
SAVERS = {p + "train.Saver" for p in TF1}
SESSIONS = {p + n for p in TF1 for n in ("Session", "InteractiveSession")}
GRAPHS = {"tensorflow.Graph", "tensorflow.compat.v1.Graph"}
VARIABLES = {p + "Variable" for p in TF1}
GET_VARIABLES = {p + "get_variable" for p in TF1}
SCOPES = {p + n for p in TF1 for n in ("name_scope", "variable_scope")}
# optimizers whose minimize()/apply_gradients() create slot variables (Adam's m and v, beta powers, ...)
SLOT_OPTIMIZERS = {
    p + "train." + n
    for p in TF1
    for n in ("AdamOptimizer", "AdagradOptimizer", "AdagradDAOptimizer", "MomentumOptimizer", "RMSPropOptimizer",
              "FtrlOptimizer", "AdadeltaOptimizer", "ProximalAdagradOptimizer", "NadamOptimizer")
}
GLOBAL_STEP = {p + "train." + n for p in TF1 for n in ("get_or_create_global_step", "create_global_step")}
# the optimizer methods that make its slot variables
SLOT_METHODS = ("minimize", "apply_gradients")
OPAQUE_PARTS = ("layers", "keras", "contrib", "estimator", "slim", "make_template", "hub")
