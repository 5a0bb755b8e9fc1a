package io.busload.testsupport;

/**
 * A system property set for one test class and put back as it was when closed: for a setting production code reads
 * from the JVM, such as the CPU backend's time cap, which tests of bookkeeping shorten. Surefire runs a fork's classes
 * one after another, so a class that closes what it set leaves the next class the JVM it found.
 */
public final class SystemProperty implements AutoCloseable {
  private final String name;
  private final String before;

  private SystemProperty(String name, String before) {
    this.name = name;
    this.before = before;
  }

  /** Sets {@code name} to {@code value} until {@link #close}. */
  public static SystemProperty set(String name, String value) {
    SystemProperty property = new SystemProperty(name, System.getProperty(name));
    System.setProperty(name, value);
    return property;
  }

  @Override
  public void close() {
    if (before == null) {
      System.clearProperty(name);
    } else {
      System.setProperty(name, before);
    }
  }
}
