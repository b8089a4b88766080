"""Train a fully connected MNIST classifier with tf.keras.

Example:
    python3 train.py --data-dir ./mnist --epochs 2
Without MNIST files in --data-dir a synthetic stand-in is used.
"""
import argparse

import tensorflow as tf

from data_utils import IMAGE_SIZE, NUM_CLASSES, load_mnist


def build_model(depth, hidden_size, activation_fn, dropout):
    model = tf.keras.Sequential(
        [tf.keras.layers.Flatten(input_shape=(IMAGE_SIZE, IMAGE_SIZE))])
    for _ in range(depth):
        model.add(tf.keras.layers.Dense(hidden_size, activation=activation_fn))
        model.add(tf.keras.layers.Dropout(dropout))
    model.add(tf.keras.layers.Dense(NUM_CLASSES))
    return model


def parse_args():
    parser = argparse.ArgumentParser(description="Keras MNIST MLP")
    parser.add_argument("--data-dir", default="./mnist")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--max-gradient-norm", type=float, default=1.0)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--hidden-size", type=int, default=128)
    parser.add_argument("--activation-fn", default="relu",
                        choices=["relu", "tanh", "sigmoid", "gelu"])
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--synthetic-samples", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def main():
    args = parse_args()
    tf.random.set_seed(args.seed)

    x_train, y_train, synthetic = load_mnist(
        args.data_dir, "train", args.synthetic_samples, args.seed)
    x_test, y_test, _ = load_mnist(
        args.data_dir, "test", args.synthetic_samples // 6, args.seed)
    if synthetic:
        print(f"no MNIST files in {args.data_dir}, using synthetic data")
    x_train = x_train.astype("float32") / 255.0
    x_test = x_test.astype("float32") / 255.0

    model = build_model(args.depth, args.hidden_size, args.activation_fn,
                        args.dropout)
    optimizer = tf.keras.optimizers.SGD(
        learning_rate=args.lr, momentum=args.momentum,
        global_clipnorm=args.max_gradient_norm or None)
    model.compile(
        optimizer=optimizer,
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"])
    model.summary()

    model.fit(x_train, y_train, batch_size=args.batch_size,
              epochs=args.epochs, validation_split=0.1)
    loss, accuracy = model.evaluate(x_test, y_test,
                                    batch_size=args.batch_size)
    print(f"test loss {loss:.4f}  test accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
