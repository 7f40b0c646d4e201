package provider

// The dbcloud_projects data source: the projects the credentials may use (GET /projects).

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// NewProjectsDataSource is the dbcloud_projects data source.
func NewProjectsDataSource() datasource.DataSource {
	return manageDataSource(&projectsDataSource{dataSourceBase{typeName: projectsTypeName}})
}

type projectsDataSource struct{ dataSourceBase }

type projectsDataModel struct {
	ProjectID types.String      `tfsdk:"project_id"`
	Projects  []projectDataItem `tfsdk:"projects"`
}

type projectDataItem struct {
	ID      types.String `tfsdk:"id"`
	Name    types.String `tfsdk:"name"`
	Current types.Bool   `tfsdk:"current"`
}

func (d *projectsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The projects the provider's credentials may use, in the order the API lists them. " +
			"Unlike every other data source, this one is not limited to the provider's `project_id`: use it to " +
			"check that `project_id` is one of them, or to look a project's id up by its name.",
		Attributes: map[string]schema.Attribute{
			"project_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The provider's `project_id` (the project every resource of this provider lives in).",
			},
			"projects": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The projects (empty when the credentials may use none).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":   schema.StringAttribute{Computed: true, MarkdownDescription: "Project id (10 lower-case letters and digits)."},
					"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Project name."},
					"current": schema.BoolAttribute{
						Computed:            true,
						MarkdownDescription: "Whether this is the provider's `project_id`.",
					},
				}},
			},
		},
	}
}

func (d *projectsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	projects, err := d.pd.client.ListProjects(ctx)
	if err != nil {
		d.pd.addError(ctx, &resp.Diagnostics, "Could not list projects", err)
		return
	}
	current := d.pd.client.ProjectID()
	out := projectsDataModel{ProjectID: types.StringValue(current), Projects: make([]projectDataItem, 0, len(projects))}
	for _, p := range projects {
		out.Projects = append(out.Projects, projectDataItem{
			ID: types.StringValue(p.ID), Name: types.StringValue(p.Name), Current: types.BoolValue(p.ID == current),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
