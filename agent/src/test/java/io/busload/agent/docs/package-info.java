/**
 * The docs' figures against the files they were taken from (a write-up said "66 of 78" where its
 * table has 60, named one run's folder for another's columns, and linked into a folder users do not have).
 */
package io.busload.agent.docs;
