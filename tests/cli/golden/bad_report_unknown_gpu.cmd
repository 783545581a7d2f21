report --gpus a40,b900
