/**
 * The dashboard's place in the fleet's cluster: a lite Hazelcast member (it holds no data, so restarting a
 * dashboard moves nothing) that only listens to what the coordinator publishes.
 *
 * <p>Views never touch Vert.x: they register listeners here and are called back off the UI thread, which is why
 * every listener must hop onto its UI with {@code UI.access}.
 */
package io.busload.dashboard.cluster;
