"""Generated data (tools/gen_tf_names.py); read at run time, never imports TensorFlow."""
