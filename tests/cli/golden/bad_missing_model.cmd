estimate -g a100
