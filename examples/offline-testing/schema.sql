-- The application's schema: a login role and a table it may use. The migration
-- runs it with psql as tsdbadmin (see migration_command in main.tf).
CREATE ROLE app LOGIN PASSWORD 'change-me';
CREATE TABLE items (
  id   bigint PRIMARY KEY,
  name text NOT NULL
);
GRANT SELECT, INSERT, UPDATE, DELETE ON items TO app;
