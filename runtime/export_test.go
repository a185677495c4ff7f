package runtime

// SchemaBuilds returns how many tool schemas rt has built, for tests of the
// schema cache.
func SchemaBuilds(rt *Runtime) int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.schemaBuilds
}

// SelectTools exposes relevance selection to benchmarks.
var SelectTools = (*Runtime).selectTools
