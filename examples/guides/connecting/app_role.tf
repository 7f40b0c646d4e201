# The application's role: no login and no password, allowed to create in schema
# public (PostgreSQL 15 and later let only the schema's owner, or a role granted
# CREATE, create there). The guide makes it with the PostgreSQL provider
# (postgresql_role and postgresql_grant); here psql does it as tsdbadmin, with the
# admin password passed in the environment only.
resource "terraform_data" "app_role" {
  triggers_replace = [dbcloud_service.app.id, filesha256("${path.module}/app_role.sql")]

  provisioner "local-exec" {
    working_dir = path.module
    command     = "psql \"$DATABASE_URL\" -v ON_ERROR_STOP=1 -q -f app_role.sql"
    environment = {
      DATABASE_URL = provider::dbcloud::with_password(dbcloud_service.app.connection_uri, var.admin_password)
    }
  }
}
