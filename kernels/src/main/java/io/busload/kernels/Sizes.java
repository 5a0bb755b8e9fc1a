package io.busload.kernels;

import java.util.Locale;

/** Byte counts in words for messages ({@code 1.5 GiB}). */
public final class Sizes {
  private Sizes() {}

  public static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }
}
