int b(void) { return 2; }
