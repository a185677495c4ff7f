package runtime

// SchemaBuilds returns how many tool schemas st has built, for tests of the
// schema cache.
func SchemaBuilds(st *State) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.schemaBuilds
}

// SelectTools exposes relevance selection to benchmarks.
var SelectTools = (*State).selectTools
