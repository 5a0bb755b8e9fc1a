package io.busload.analysis;

import java.util.Locale;

/** How the verdicts' sentences write numbers and names, in one place. */
public final class Words {
  private Words() {}

  /** 0.0712 as "7.1%", 0.004 as "0.40%": two significant figures are what the noise supports. */
  public static String percent(double fraction) {
    double p = Math.abs(fraction * 100);
    String digits = p >= 10 ? "%.0f" : p >= 1 ? "%.1f" : "%.2f";
    return String.format(Locale.ROOT, digits + "%%", p);
  }

  /** 0.0712 as "+7.1%", -0.0712 as "-7.1%". */
  public static String signedPercent(double fraction) {
    return (fraction < 0 ? "-" : "+") + percent(fraction);
  }

  /** A whole number of MHz, "1980 MHz". */
  public static String mhz(double mhz) {
    return String.format(Locale.ROOT, "%.0f MHz", mhz);
  }

  /** "NVIDIA H100 80GB HBM3" as "H100": what people call the card. Other names stay whole. */
  public static String model(String deviceName) {
    if (deviceName == null || deviceName.isBlank()) {
      return "device";
    }
    String name = deviceName.strip();
    if (name.startsWith("NVIDIA ")) {
      String rest = name.substring("NVIDIA ".length()).strip();
      int space = rest.indexOf(' ');
      return space < 0 ? rest : rest.substring(0, space);
    }
    return name;
  }
}
