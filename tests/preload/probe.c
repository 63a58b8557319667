/* A library a user preloads into the ranks (a profiler, say): the master
 * must keep it, before libbdmpi, in the ranks' LD_PRELOAD. */
void preload_probe(void) {}
