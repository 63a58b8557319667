/* A static program (spawn_test): nothing can be preloaded into it. */
int main(void) { return 0; }
