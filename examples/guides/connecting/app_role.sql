-- The application's role: it owns the schema's objects; logins are members of it.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'app') THEN
    CREATE ROLE app NOLOGIN;
  END IF;
END $$;
GRANT USAGE, CREATE ON SCHEMA public TO app;
-- tsdbadmin manages (and reads) what app owns.
GRANT app TO tsdbadmin;
