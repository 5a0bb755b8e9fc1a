/**
 * The agent's command line (issue 2, must-have 5): {@code run} measures a suite on one device and prints it
 * with no cluster at all; {@code agent} joins the fleet's cluster and serves the coordinator's runs.
 */
package io.busload.agent;
