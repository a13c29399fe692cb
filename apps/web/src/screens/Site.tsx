import { Link, useParams } from 'react-router';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { Customizer } from '../site/Customizer.js';
import { PublishPanel } from '../site/PublishPanel.js';
import { ShareLinks } from '../site/ShareLinks.js';
import { useSite, type SiteRef } from '../site/site-api.js';
import { StructureEditor } from '../site/StructureEditor.js';
import { VisitorAuth } from '../site/VisitorAuth.js';

/** A docs site: publishing and visibility, its spaces and sections, its look with a preview, share links and visitor authentication. */
export default function Site() {
  const siteRef = useParams() as unknown as SiteRef;
  const site = useSite(siteRef);
  if (site.isPending) return <Loading label="Loading the site" />;
  if (site.isError) return <ErrorNotice title="This site could not be opened" error={site.error} />;
  const { data } = site;
  return (
    <section className="screen site-screen">
      <p className="crumbs">
        <Link to={`/o/${encodeURIComponent(siteRef.organizationId)}`}>Organization</Link>
      </p>
      <h1>{data.title}</h1>
      <nav aria-label="Site settings" className="site-nav">
        <a href="#site-publishing">Publishing</a>
        <a href="#site-structure">Spaces and sections</a>
        <a href="#site-customization">Customization</a>
        <a href="#site-share-links">Share links</a>
        <a href="#site-visitor-auth">Visitor authentication</a>
      </nav>
      <div id="site-publishing">
        <PublishPanel site={data} siteRef={siteRef} />
      </div>
      <div id="site-structure">
        <StructureEditor siteRef={siteRef} />
      </div>
      <div id="site-customization">
        <Customizer site={data} siteRef={siteRef} />
      </div>
      <div id="site-share-links">
        <ShareLinks site={data} siteRef={siteRef} />
      </div>
      <div id="site-visitor-auth">
        <VisitorAuth site={data} siteRef={siteRef} />
      </div>
    </section>
  );
}
