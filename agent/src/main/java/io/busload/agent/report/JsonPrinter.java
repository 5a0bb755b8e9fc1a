package io.busload.agent.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.io.PrintWriter;
import java.util.List;

/** A JSON array of protocol {@code KernelResult}s, exactly as the coordinator stores and serves them. */
public final class JsonPrinter implements ResultPrinter {
  @Override
  public void print(List<KernelResult> results, PrintWriter out) {
    try {
      out.println(JsonCodec.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(results));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write results as JSON", e);
    }
    out.flush();
  }
}
