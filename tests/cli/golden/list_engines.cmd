list engines
