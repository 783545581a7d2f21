list gpu
