package engine

// SetPID makes c record events as process pid's, and recognise those as its own.
func SetPID(c *Controller, pid int) { c.pid = pid }
