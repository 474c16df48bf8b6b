"""Between-graph replicated training, the 2017 way (the "Distributed TensorFlow" how-to).

Every process runs this file with its own flags: the parameter servers (`--job_name=ps`) serve the
variables, the workers (`--job_name=worker`) each build the whole graph with the variables placed
on the parameter servers by replica_device_setter, and train asynchronously through a
MonitoredTrainingSession; worker 0 is the chief (it initializes the variables and writes the
checkpoints). A two-class problem on numpy data keeps it self-contained:

    python legacy.py --ps_hosts=localhost:2222 --worker_hosts=localhost:2223,localhost:2224 --job_name=ps --task_index=0
    python legacy.py --ps_hosts=localhost:2222 --worker_hosts=localhost:2223,localhost:2224 --job_name=worker --task_index=0
    python legacy.py --ps_hosts=localhost:2222 --worker_hosts=localhost:2223,localhost:2224 --job_name=worker --task_index=1
"""

import argparse
import sys

import numpy as np
import tensorflow as tf
tf.compat.v1.disable_eager_execution()

FLAGS = None


def make_data(num_examples=256, seed=0):
    """Four features; the label says whether their sum is positive."""
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(num_examples, 4)).astype(np.float32)
    y = (x.sum(axis=1) > 0).astype(np.int64)
    return x, y


def main(_):
    ps_hosts = FLAGS.ps_hosts.split(",")
    worker_hosts = FLAGS.worker_hosts.split(",")

    # Create a cluster from the parameter server and worker hosts.
    cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})

    # Create and start a server for the local task.
    server = tf.compat.v1.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)

    if FLAGS.job_name == "ps":
        server.join()
    elif FLAGS.job_name == "worker":
        x_data, y_data = make_data(seed=FLAGS.task_index)

        # Assigns ops to the local worker by default.
        with tf.compat.v1.device(tf.compat.v1.train.replica_device_setter(
                worker_device="/job:worker/task:%d" % FLAGS.task_index,
                cluster=cluster)):
            x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
            y = tf.compat.v1.placeholder(tf.int64, [None], name="y")
            hidden = tf.compat.v1.layers.dense(x, FLAGS.hidden_units, activation=tf.nn.relu)
            logits = tf.compat.v1.layers.dense(hidden, 2)
            loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
            global_step = tf.compat.v1.train.get_or_create_global_step()
            train_op = tf.compat.v1.train.AdagradOptimizer(FLAGS.learning_rate).minimize(loss, global_step=global_step)

        # The StopAtStepHook handles stopping after running given steps.
        hooks = [tf.estimator.StopAtStepHook(last_step=FLAGS.max_steps)]

        # The MonitoredTrainingSession takes care of session initialization,
        # restoring from a checkpoint, saving to a checkpoint, and closing when done
        # or an error occurs.
        with tf.compat.v1.train.MonitoredTrainingSession(master=server.target,
                                               is_chief=(FLAGS.task_index == 0),
                                               checkpoint_dir=FLAGS.model_dir,
                                               hooks=hooks) as mon_sess:
            step = 0
            while not mon_sess.should_stop():
                start = (step * FLAGS.batch_size) % len(x_data)
                feed = {x: x_data[start:start + FLAGS.batch_size], y: y_data[start:start + FLAGS.batch_size]}
                mon_sess.run(train_op, feed_dict=feed)
                step += 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.register("type", "bool", lambda v: v.lower() == "true")
    parser.add_argument("--ps_hosts", type=str, default="", help="Comma-separated list of hostname:port pairs")
    parser.add_argument("--worker_hosts", type=str, default="", help="Comma-separated list of hostname:port pairs")
    parser.add_argument("--job_name", type=str, default="", help="One of 'ps', 'worker'")
    parser.add_argument("--task_index", type=int, default=0, help="Index of task within the job")
    parser.add_argument("--model_dir", type=str, default="/tmp/train_logs", help="Where the chief writes checkpoints")
    parser.add_argument("--hidden_units", type=int, default=16)
    parser.add_argument("--learning_rate", type=float, default=0.05)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--max_steps", type=int, default=1000)
    FLAGS, unparsed = parser.parse_known_args()
    tf.compat.v1.app.run(main=main, argv=[sys.argv[0]] + unparsed)
