# With the generated initial_password instead of password_wo: the full URI is
# sensitive because the password is, so Terraform hides it in plans and outputs.
output "app_database_url" {
  sensitive = true
  value     = provider::dbcloud::with_password(dbcloud_service.app.connection_uri, dbcloud_service.app.initial_password)
}
