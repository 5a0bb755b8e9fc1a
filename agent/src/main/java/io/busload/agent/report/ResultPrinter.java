package io.busload.agent.report;

import io.busload.protocol.KernelResult;
import java.io.PrintWriter;
import java.util.List;

/** Formats the results of one run. */
public interface ResultPrinter {
  void print(List<KernelResult> results, PrintWriter out);

  /** The printer for a {@code --format} value. */
  static ResultPrinter forFormat(Format format) {
    return switch (format) {
      case table -> new TablePrinter();
      case json -> new JsonPrinter();
      case csv -> new CsvPrinter();
    };
  }

  enum Format { table, json, csv }
}
