#!/bin/sh
# Installs what the training recipe runs on: Debian's PyTorch and ONNX for /usr/bin/python3.
set -eu
apt-get update
apt-get install -y python3-torch python3-onnx
