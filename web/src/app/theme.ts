import type { ThemeConfig } from 'antd';

/** Orange brand darkened to pass WCAG AA (4.5:1) with white text and as link colour on white. */
export const theme: ThemeConfig = {
  token: {
    colorPrimary: '#c2410c',
    colorLink: '#c2410c',
    colorError: '#b91c1c',
    borderRadius: 8,
    fontFamily:
      "Inter, system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif",
  },
};
