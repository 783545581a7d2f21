report --gpus a40,,a100
