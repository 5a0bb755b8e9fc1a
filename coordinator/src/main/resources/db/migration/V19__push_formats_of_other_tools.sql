-- A push's format names other tools' outputs too ('babelstream'), longer than json and csv.
ALTER TABLE pushes ALTER COLUMN format TYPE VARCHAR(32);
