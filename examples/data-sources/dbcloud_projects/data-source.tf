# The projects the provider's credentials may use.
data "dbcloud_projects" "all" {}

output "project_names" {
  value = { for p in data.dbcloud_projects.all.projects : p.id => p.name }
}

# Fail early when the provider's project_id is not one of them.
check "project_allowed" {
  assert {
    condition     = anytrue([for p in data.dbcloud_projects.all.projects : p.current])
    error_message = "project_id ${data.dbcloud_projects.all.project_id} is not a project these credentials may use."
  }
}
