// Linked with every plain library and calling none of them: what it needs at run time is what
// their link interfaces name (tests/CMakeLists.txt, plain_libraries_link_no_corba_or_qt).
int main() {
  return 0;
}
