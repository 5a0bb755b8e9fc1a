package io.busload.testsupport.tree;

/** One line a tree check reports, printed as a compiler prints a location so that an editor can jump to it. */
record Finding(String file, int line, String text) {
  @Override
  public String toString() {
    return file + ":" + line + ": " + text.strip();
  }
}
