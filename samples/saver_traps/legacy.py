"""Seed 002: the three tf.train.Saver traps ("TensorFlow のモデル保存アレコレ", Advent Calendar 2016, day 23).

1. A Saver snapshots the variables that exist when it is constructed: variable_1, made after
   saver1, is silently not saved, and restoring it from that checkpoint fails.
2. Restoring a checkpoint that holds more than the graph needs is fine: extra keys are ignored.
3. A Saver finds its save/restore ops by name in the session's graph, so saver1 (built in g1)
   saves and restores the variables of g2/g3 when handed their sessions.
"""

import os
import sys

import tensorflow as tf


def sample1(base):
    # Save variables
    with tf.Graph().as_default() as g1:
        v0 = tf.Variable(0, name="variable_0")
        saver1 = tf.train.Saver()  # adds ops that save/restore variable_0 to g1
        v1 = tf.Variable(1, name="variable_1")
        init_op = tf.global_variables_initializer()
        with tf.Session() as sess1:
            sess1.run(init_op)
            saver1.save(sess1, os.path.join(base, "sample1", "export"))  # variable_1 is not saved

    # Restore variables
    with tf.Graph().as_default() as g2:
        v0 = tf.Variable(10, name="variable_0")
        v1 = tf.Variable(100, name="variable_1")
        saver2 = tf.train.Saver()  # adds ops that save/restore variable_0 and variable_1 to g2
        init_op = tf.global_variables_initializer()
        with tf.Session() as sess2:
            sess2.run(init_op)
            try:
                saver2.restore(sess2, os.path.join(base, "sample1", "export"))  # restores both
            except tf.errors.NotFoundError as error:
                print("sample1 restore failed:", " ".join(error.message.split()))


def sample2(base):
    # Save variables
    with tf.Graph().as_default() as g1:
        v0 = tf.Variable(0, name="variable_0")
        v1 = tf.Variable(1, name="variable_1")
        saver1 = tf.train.Saver()
        init_op = tf.global_variables_initializer()
        with tf.Session() as sess1:
            sess1.run(init_op)
            saver1.save(sess1, os.path.join(base, "sample2", "export"))

    # Restore variables
    with tf.Graph().as_default() as g2:
        v3 = tf.Variable(10, name="variable_0")
        saver2 = tf.train.Saver()
        with tf.Session() as sess2:
            saver2.restore(sess2, os.path.join(base, "sample2", "export"))
            print("sample2 restored variable_0 =", sess2.run(v3))


def sample3(base):
    # g1 is built and never run
    with tf.Graph().as_default() as g1:
        v0 = tf.Variable(0, name="variable_0")
        saver1 = tf.train.Saver()

    with tf.Graph().as_default() as g2:
        v1 = tf.Variable(10, name="variable_1")
        saver2 = tf.train.Saver()
        init_op = tf.global_variables_initializer()
        with tf.Session() as sess2:
            sess2.run(init_op)
            saver1.save(sess2, os.path.join(base, "sample3", "export"))  # saver1 is not a typo

    with tf.Graph().as_default() as g3:
        v2 = tf.Variable(100, name="variable_1")
        saver3 = tf.train.Saver()
        with tf.Session() as sess3:
            saver1.restore(sess3, os.path.join(base, "sample3", "export"))  # saver1 is not a typo
            print("sample3 restored variable_1 =", sess3.run(v2))


def main(base):
    for name in ("sample1", "sample2", "sample3"):
        os.makedirs(os.path.join(base, name), exist_ok=True)  # Saver.save needs the directory
    sample1(base)
    sample2(base)
    sample3(base)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "model")
