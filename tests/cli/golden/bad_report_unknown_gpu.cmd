report --gpus a40,b200
