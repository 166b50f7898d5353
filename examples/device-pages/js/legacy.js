// legacy
