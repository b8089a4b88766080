"""model_fn for the CerebrasEstimator: the MNIST MLP of keras-mnist-original.

The estimator, not this file, runs training and evaluation. Metrics are
not computed on the CS system; in EVAL mode the logits and labels go to
the host through host_call, and the metric ops are built there.
"""
import tensorflow as tf

from modelzoo.common.tf.estimator.cs_estimator_spec import CSEstimatorSpec

NUM_CLASSES = 10


def build_model(features, params, training):
    x = tf.keras.layers.Flatten()(features)
    for index in range(params["model"]["depth"]):
        x = tf.keras.layers.Dense(params["model"]["hidden_size"],
                                  activation=params["model"]["activation_fn"],
                                  name=f"dense_{index}")(x)
        x = tf.keras.layers.Dropout(params["model"]["dropout"])(
            x, training=training)
    return tf.keras.layers.Dense(NUM_CLASSES, name="logits")(x)


def build_train_op(loss, params):
    learning_rate = params["optimizer"]["learning_rate"]
    if params["optimizer"]["optimizer_type"] == "SGD":
        optimizer = tf.compat.v1.train.MomentumOptimizer(
            learning_rate, momentum=params["optimizer"]["momentum"])
    else:
        optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate)
    grads_and_vars = optimizer.compute_gradients(loss)
    if params["optimizer"]["max_gradient_norm"] > 0:
        grads, variables = zip(*grads_and_vars)
        grads, _ = tf.clip_by_global_norm(
            grads, params["optimizer"]["max_gradient_norm"])
        grads_and_vars = list(zip(grads, variables))
    return optimizer.apply_gradients(
        grads_and_vars,
        global_step=tf.compat.v1.train.get_or_create_global_step())


def build_eval_metric_ops(logits, labels):
    """Runs on the host, called through host_call."""
    predictions = tf.argmax(logits, axis=1, output_type=tf.int32)
    return {"accuracy": tf.compat.v1.metrics.accuracy(
        labels=labels, predictions=predictions)}


def model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    logits = build_model(features, params, training)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(
        labels=labels, logits=logits)

    if training:
        train_op = build_train_op(loss, params)
        return tf.estimator.EstimatorSpec(mode=mode, loss=loss,
                                          train_op=train_op)
    if mode == tf.estimator.ModeKeys.EVAL:
        return CSEstimatorSpec(mode=mode, loss=loss,
                               host_call=(build_eval_metric_ops,
                                          [logits, labels]))
    raise ValueError(f"mode {mode} is not supported")
