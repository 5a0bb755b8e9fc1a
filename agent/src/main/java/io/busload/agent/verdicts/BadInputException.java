package io.busload.agent.verdicts;

/** Input the commands refuse (exit code 2): the message names the file and line, or the unknown id. */
final class BadInputException extends Exception {
  BadInputException(String message) {
    super(message);
  }
}
