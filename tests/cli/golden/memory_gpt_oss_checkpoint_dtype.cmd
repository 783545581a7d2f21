memory -m gpt-oss-120b -g h100
