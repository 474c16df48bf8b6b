import os

# TensorFlow's C++ and absl log noise stays out of test output; real errors still raise.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("ABSL_MIN_LOG_LEVEL", "3")
os.environ.setdefault("PYTHONHASHSEED", "0")
